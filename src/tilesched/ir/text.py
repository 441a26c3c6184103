"""Parse and print tilesched IR (MLIR text), with source locations on every op.

``parse_text`` returns a ``builtin.module`` whose ops carry a
``FileLineColLoc`` of where they were written, so every later diagnostic (the
verifier, passes, the simulator's race reports) can name ``file:line:col``.
Parse errors become :class:`TileschedError` with the same location format.
"""

from __future__ import annotations

import io
import pathlib
import re

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, math, memref, scf
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from tilesched.diagnostics import Location, TileschedError
from tilesched.ir.sync import Sync
from tilesched.ir.tile import Tile

DIALECTS = (builtin.Builtin, func.Func, scf.Scf, arith.Arith, memref.MemRef, math.Math,
            affine.Affine, Tile, Sync)


def load_dialects(ctx: Context) -> None:
    """Load the dialects tile programs use into ``ctx``."""
    for dialect in DIALECTS:
        ctx.load_dialect(dialect)


def make_context() -> Context:
    """A context with the dialects tile programs use."""
    ctx = Context()
    load_dialects(ctx)
    return ctx


class _LocatingParser(Parser):
    """xDSL's MLIR parser, recording ``file:line:col`` of each op it reads."""

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            where = start.get_location()
            op.location = FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))
        return op


def parse_text(text: str, filename: str = "<stdin>") -> ModuleOp:
    """Parse MLIR text into a module; errors are located :class:`TileschedError`."""
    if not re.sub(r"//[^\n]*", "", text).strip():
        return ModuleOp([])  # like mlir-opt, an empty file is an empty module
    try:
        module = _LocatingParser(make_context(), text, filename).parse_module()
    except ParseError as err:
        where = err.span.get_location()
        loc = _first_use(text, err.msg, filename) or Location(filename, where.line, where.col)
        raise TileschedError(_first_line(err.msg), loc) from None
    except VerifyException as err:  # raised by some attribute constructors while parsing
        raise TileschedError(_first_line(str(err)), filename) from None
    if not isinstance(module, ModuleOp):
        raise TileschedError("expected a builtin.module at top level", filename)
    return module


def parse_file(path: str) -> ModuleOp:
    """Read and parse a ``.mlir`` file (``-`` reads standard input)."""
    if path == "-":
        import sys

        return parse_text(sys.stdin.read(), "<stdin>")
    file = pathlib.Path(path)
    if not file.is_file():
        raise TileschedError(f"cannot read '{path}': no such file")
    try:
        text = file.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise TileschedError(f"cannot read '{path}': {err}") from None
    return parse_text(text, path)


def location_of(op: Operation) -> Location | None:
    """Where ``op`` was written, if known (walks up to the nearest located parent)."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        current = current.parent_op()
    return None


def print_module(module: Operation, generic: bool = False) -> str:
    """Print IR as MLIR text (custom syntax, or the generic form of DESIGN.md §2)."""
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue().rstrip("\n") + "\n"


def _first_use(text: str, message: str, filename: str) -> Location | None:
    """xDSL reports undefined values at the end of the region; point at the first use instead."""
    match = re.match(r"values used but not defined: \[(%[\w$.-]+)", message.strip())
    if not match:
        return None
    for use in re.finditer(re.escape(match.group(1)) + r"(?![\w$.-])", text):
        line_start = text.rfind("\n", 0, use.start()) + 1
        if "//" in text[line_start:use.start()]:
            continue  # inside a comment
        line = text.count("\n", 0, use.start()) + 1
        return Location(filename, line, use.start() - line_start + 1)
    return None


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "invalid input"
