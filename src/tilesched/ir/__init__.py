"""The tile program IR: ``tile`` and ``sync`` dialects on xDSL, text I/O, verification."""

from tilesched.ir.text import location_of, make_context, parse_file, parse_text, print_module
from tilesched.ir.verify import verify_module

__all__ = ["location_of", "make_context", "parse_file", "parse_text", "print_module", "verify_module"]
