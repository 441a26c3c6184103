"unterminated string as the first token
