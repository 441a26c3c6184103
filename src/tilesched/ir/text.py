"""Parse and print tilesched IR (MLIR text), with source locations on every op.

``parse_text`` returns a ``builtin.module`` whose ops carry a
``FileLineColLoc`` of where they were written, so every later diagnostic (the
verifier, passes, the simulator's race reports) can name ``file:line:col``.
Parse errors become :class:`TileschedError` with the same location format.
"""

from __future__ import annotations

import bisect
import io
import re

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, math, memref, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer

from tilesched.diagnostics import Location, TileschedError
from tilesched.gc_pause import paused_gc
from tilesched.input_files import read_text
from tilesched.ir.fast_parse import FastParseCache, parse_fast_op
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


# Ops nested deeper than this (module > func > scf.for > ...) are refused: real kernels nest a
# handful of loops, and every stage after the parser (verifier, passes, simulator, printer) walks
# regions recursively, so a limit here keeps them all far from Python's recursion limit.
MAX_NESTING = 100

# A memref type written without nested brackets (layouts, nested strings with escapes): the text
# that :meth:`_LocatingParser.parse_optional_type` caches.
_PLAIN_MEMREF = re.compile(r'memref<(?:[^<>{}()\[\]"\\\n]++|"[^"\\\n]*+")*+>')


class _Lexer(MLIRLexer):
    """xDSL's lexer with a string-literal pattern that cannot backtrack: xDSL's
    ``"(?:[^"...]+|escape)*"`` tries every split of the text after an unterminated quote, so a
    line such as ``"unterminated string as the first token`` took hours (2^n splits). The
    possessive form matches the same strings (the two alternatives start with different
    characters) and fails in linear time."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


class _LocatingParser(Parser):
    """xDSL's MLIR parser, recording ``file:line:col`` of each op it reads.

    Five additions, all about large or hostile input:
    - line numbers come from a table of line starts (binary search), not from counting the
      newlines before every op, which made parsing quadratic in the file size;
    - a memref type spelled exactly as one seen before is not parsed again (kernels repeat a few
      types thousands of times; xDSL builds and verifies each ``MemRefType`` afresh);
    - the ops big kernels consist of are read by a fast path (:mod:`tilesched.ir.fast_parse`);
    - op nesting deeper than :data:`MAX_NESTING` and literals that do not fit their type are
      located parse errors;
    - string literals are lexed by :class:`_Lexer`, in linear time when unterminated.
    """

    def __init__(self, ctx: Context, text: str, filename: str, fast_path: bool = True):
        super().__init__(ctx, "", filename)
        self._parser_state = ParserState(_Lexer(Input(text, filename)))  # lexes the first token
        self._fast_path = fast_path
        self._text = text
        self._filename = StringAttr(filename)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._types: dict[str, Attribute] = {}
        self._fast = FastParseCache(self._types)
        self._depth = 0
        self._columns: dict[int, IntAttr] = {}

    def location_at(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        if self._depth >= MAX_NESTING:
            self.raise_error(f"ops nested deeper than {MAX_NESTING} levels (regions inside "
                             "regions) are not supported")
        op = parse_fast_op(self, self._fast) if self._fast_path else None
        if op is None:
            self._resume_from(start)
            self._depth += 1
            try:
                op = super().parse_operation()
            finally:
                self._depth -= 1
        if not isinstance(op.location, FileLineColLoc):
            op.location = self.op_location(start)
        return op

    def op_location(self, offset: int) -> FileLineColLoc:
        """``loc("FILE":line:column)`` of a character offset, built without xDSL's attribute verifier: its three
        parameters are a ``StringAttr`` and two ``IntAttr`` by construction, and verifying them
        took a fifth of parsing 50k ops. Column attributes repeat and are shared."""
        line, column = self.location_at(offset)
        if (column_attr := self._columns.get(column)) is None:
            column_attr = self._columns[column] = IntAttr(column)
        line_attr = object.__new__(IntAttr)
        object.__setattr__(line_attr, "data", line)
        loc = object.__new__(FileLineColLoc)
        object.__setattr__(loc, "filename", self._filename)
        object.__setattr__(loc, "line", line_attr)
        object.__setattr__(loc, "column", column_attr)
        return loc

    def parse_optional_type(self) -> Attribute | None:
        token = self._current_token
        if token.text != "memref" or not (match := _PLAIN_MEMREF.match(self._text, token.span.start)):
            return super().parse_optional_type()
        spelling = match.group(0)
        if (known := self._types.get(spelling)) is not None:
            self._resume_from(match.end())
            return known
        parsed = super().parse_optional_type()
        if parsed is not None and not self._text[match.end():self._current_token.span.start].strip():
            self._types[spelling] = parsed
        return parsed

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        token = self._current_token
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except (VerifyException, OverflowError, ValueError) as err:
            self.raise_error(self._literal_message(token.span.start, err), token.span)
        if (isinstance(attr, FloatAttr) and attr.value.data in (float("inf"), float("-inf"))
                and "0x" not in token.text.lower()):
            self.raise_error(self._literal_message(token.span.start, OverflowError()), token.span)
        return attr

    def _literal_message(self, start: int, err: Exception) -> str:
        """Why the number written at ``start`` does not fit its type, in one line."""
        if not isinstance(err, OverflowError):
            return _first_line(str(err))
        written = _FLOAT_LITERAL.match(self._text, start)
        return f"float literal {written.group(1)} is out of range for {written.group(2) or 'f64'}"


_FLOAT_LITERAL = re.compile(r"(-?\s*[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?)\s*(?::\s*([\w.]+))?")


def parse_text(text: str, filename: str = "<stdin>", fast_path: bool = True) -> ModuleOp:
    """Parse MLIR text into a module; errors are located :class:`TileschedError`.
    ``fast_path=False`` reads every op with xDSL's own parser (same result, slower: for
    comparisons in tests and benchmarks). A leading byte-order mark is ignored."""
    text = text.removeprefix("\ufeff")
    if not re.sub(r"//[^\n]*", "", text).strip():
        return _located(ModuleOp([]), filename)  # like mlir-opt, an empty file is an empty module
    parser = None
    try:
        with paused_gc():  # 50k ops: full collections over the growing IR took 20% of the time
            parser = _LocatingParser(make_context(), text, filename, fast_path)  # lexes a token
            module = parser.parse_module()
    except ParseError as err:
        line, column = _line_and_column(text, err.span.start)
        loc = _first_use(text, err.msg, filename) or Location(filename, line, column)
        raise TileschedError(_readable(_first_line(err.msg), text, err.span.start), loc) from None
    except RecursionError:  # nested attributes or types: there is no limit on those above
        raise TileschedError("input nested too deeply", _current_location(parser, filename)) from None
    except Exception as err:  # xDSL's attribute constructors and verifiers raise on bad text too
        raise TileschedError(_first_line(str(err)) if str(err).strip() else type(err).__name__,
                             _current_location(parser, filename)) from None
    if not isinstance(module, ModuleOp):
        raise TileschedError("expected a builtin.module at top level", filename)
    return _located(module, filename)


def _located(module: ModuleOp, filename: str) -> ModuleOp:
    """``module`` located at the start of its file when the text did not write a module (an
    error about the whole module, "no function with a body to simulate", then names the
    file)."""
    if not isinstance(module.location, FileLineColLoc):
        module.location = FileLineColLoc(StringAttr(filename), IntAttr(1), IntAttr(1))
    return module


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset (for one error: a linear scan is fine)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _current_location(parser: _LocatingParser | None, filename: str) -> Location | str:
    """Where the parser stopped (the token it was reading), or just the file."""
    if parser is None:
        return filename
    line, column = parser.location_at(parser._current_token.span.start)  # noqa: SLF001
    return Location(filename, line, column)


def parse_file(path: str) -> ModuleOp:
    """Read (bounded: :mod:`tilesched.input_files`) and parse a ``.mlir`` file (``-`` reads
    standard input)."""
    return parse_text(read_text(path), "<stdin>" if path == "-" else path)


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
    _Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue().rstrip("\n") + "\n"


class _Printer(Printer):
    """xDSL's printer, with the same output in half the time on large programs: text without
    a line break goes straight to the stream (``print(..., file=)`` per fragment was a third of
    the time), and a memref type is spelled once per type object (kernels repeat a few types
    thousands of times; spelling one took over a hundred calls)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._write = self.stream.write if self.stream is not None else None
        self._spelled: dict[int, tuple[Attribute, str]] = {}

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if self._write is None or "\n" in text:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self._write(text)

    def print_attribute(self, attribute: Attribute) -> None:
        if type(attribute) is not MemRefType or self._write is None:
            super().print_attribute(attribute)
            return
        known = self._spelled.get(id(attribute))
        if known is None:  # the attribute is kept with its text, so its id stays its own
            buffer, self._write = io.StringIO(), None
            try:
                spelling = Printer(stream=buffer)
                spelling.print_attribute(attribute)
            finally:
                self._write = self.stream.write
            known = self._spelled[id(attribute)] = (attribute, buffer.getvalue())
        self.print_string(known[1])


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


def _readable(message: str, text: str, offset: int) -> str:
    """xDSL names an unexpected character as is (a NUL then shows as nothing: quote it,
    ``Unexpected character: '\\x00'``) and one message leaves its placeholder unfilled."""
    prefix = "Unexpected character: "
    if message.startswith(prefix):
        return prefix + repr(message[len(prefix):])
    return message.replace("{first_char}", repr(text[offset:offset + 1]))


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "invalid input"
