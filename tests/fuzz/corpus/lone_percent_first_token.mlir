%// a value sigil with no name before anything else: the lexer fails in the parser constructor
