"""A fast path for the ops large tile programs are made of (parse + verify of 50k ops < 5 s).

xDSL parses an op written in a declarative assembly format token by token, checking constraints
as it goes, at roughly 0.2 ms per op; an unrolled or synchronized kernel of 50k ops took about
10 s to read. Almost all of those ops have one of three shapes:

    tile.add %a, %b, %c {attrs} : memref<...>, memref<...>, memref<...>
    %v = tile.view %src[%i, %j] {sizes = array<i64: 16, 16>} : memref<...> -> memref<...>
    sync.set_flag "MTE2" -> "V", 3

:func:`parse_fast_op` recognizes these shapes with regular expressions on the source text,
takes their types from the parser's cache of types already parsed, resolves operands and
defines results with xDSL's own parser methods (so forward references, type mismatches and
redefinitions behave and are reported exactly as before) and builds the op with
``Operation.create``, like xDSL's generic-form parser. Anything else — an unknown type spelling,
a property that does not satisfy its constraint, a missing property, an operand of the wrong
kind, comments, line breaks inside the op, a trailing ``loc(...)`` — returns None and xDSL's
parser reads the op from its start as usual (and reports its errors). The equivalence of both paths is tested on
every example and lit input (tests/ir/test_fast_parse.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.ir.core import SSAValues, Use
from xdsl.irdl import IRDLOperation, OperandDef, OptionalDef, ParsePropInAttrDict
from xdsl.irdl.constraints import VerificationContext
from xdsl.parser.core import UnresolvedOperand
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span

from tilesched.ir.sync import SetFlagOp, WaitFlagOp
from tilesched.ir.tile import SlotOp, ViewOp

SCALAR_TYPES: dict[str, Attribute] = {
    "f16": builtin.f16, "bf16": builtin.bf16, "f32": builtin.f32, "f64": builtin.f64,
    "index": builtin.IndexType(), "i1": builtin.i1, "i8": builtin.i8, "i16": builtin.i16,
    "i32": builtin.i32, "i64": builtin.i64,
}

_VALUE = r"%[A-Za-z0-9_$.\-]+"
_RESULT = re.compile(rf"({_VALUE})[ \t]*=[ \t]*")
_NAME = re.compile(r"((?:tile|sync)\.\w+)[ \t]+")
_OPERANDS = re.compile(rf"{_VALUE}(?:[ \t]*,[ \t]*{_VALUE})*")
_ONE_VALUE = re.compile(_VALUE)
_INDEXED = re.compile(rf"({_VALUE})[ \t]*\[[ \t]*((?:{_OPERANDS.pattern})?)[ \t]*\][ \t]*")
_FLAG = re.compile(r'"([A-Za-z0-9_.]+)"[ \t]*->[ \t]*"([A-Za-z0-9_.]+)"[ \t]*,[ \t]*'
                   rf'(?:([0-9]{{1,18}})|({_VALUE}))[ \t]*')
_TYPE = re.compile(r'[ \t]*(memref<(?:[^<>{}()\[\]"\\\n]|"[^"\\\n]*")*>|[a-z]+[0-9]*)[ \t]*')
_SPACES = re.compile(r"[ \t]*")
_PLAIN_DICT = re.compile(r'\{[^{}"\n]*\}')  # an attribute dictionary without nesting or strings
# generic form: ``"dialect.op"(%a, %b) <{props}>? {attrs}? : (T, T) -> T``
_GENERIC_NAME = re.compile(r'"([a-z_][a-z0-9_]*\.[A-Za-z0-9_.]+)"[ \t]*\([ \t]*')
_GENERIC_OPERANDS = re.compile(rf"((?:{_VALUE}(?:[ \t]*,[ \t]*{_VALUE})*)?)[ \t]*\)[ \t]*")
# a dictionary without nesting whose strings have no escapes or braces: read once per spelling
_SIMPLE_DICT = re.compile(r'\{(?:[^{}"\\\n]|"[^"\\\n{}]*")*\}')
_END = re.compile(r"[ \t]*(?:\n|$)")

# The declarative formats the shapes stand for (an op with another format is never fast-parsed).
_OPERANDS_FORMAT = re.compile(r"\$\w+(?: `,` \$\w+)* attr-dict `:` type\(\$\w+\)(?: `,` type\(\$\w+\))*")
_WINDOW_FORMAT = "$source `[` $%s `]` attr-dict `:` type($source) `->` type($result)"


@dataclass(frozen=True)
class _Shape:
    """How an op class is written: ``operands``, ``window`` (view/slot) or ``flag``."""

    kind: str
    op: type[IRDLOperation]


def fast_shape(op_class: type[Operation] | None) -> _Shape | None:
    """The fast-path shape of an op class, or None when it has none."""
    if op_class is None or not issubclass(op_class, IRDLOperation):
        return None
    if not any(isinstance(o, ParsePropInAttrDict) for o in getattr(op_class, "irdl_options", ())):
        return None  # dictionary entries are attributes, not properties, for such an op
    fmt = getattr(op_class, "assembly_format", None) or ""
    definition = op_class.get_irdl_definition()
    if op_class is ViewOp:  # its parse() reads what _window_op reads, and also ``valid [...]``
        return _Shape("window", op_class)
    if op_class is SlotOp:
        return _Shape("window", op_class) if fmt == _WINDOW_FORMAT % "index" else None
    if op_class in (SetFlagOp, WaitFlagOp):  # their parse() reads what _flag_op reads
        return _Shape("flag", op_class)
    if definition.results or definition.regions or not _OPERANDS_FORMAT.fullmatch(fmt):
        return None
    names = re.findall(r"\$(\w+)", fmt.split("attr-dict")[0])
    typed = re.findall(r"type\(\$(\w+)\)", fmt)
    operands = [name for name, _ in definition.operands]
    if names != operands or typed != operands:
        return None
    if not all(type(d) is OperandDef for _, d in definition.operands):
        return None
    return _Shape("operands", op_class)


@dataclass
class FastParseCache:
    """What one parser learned: ``types`` maps type spellings it parsed to their attribute,
    ``shapes`` the :func:`fast_shape` of each op name, ``valid`` the op parts already checked
    against their definition (types by identity: the parser keeps them alive), ``dicts`` the
    attribute dictionaries by spelling and ``flag_values`` the properties of set/wait flags
    (attributes are immutable: ops share them); ``op_start`` is where the op being read starts."""

    types: dict[str, Attribute]
    shapes: dict[str, _Shape | None] = field(default_factory=dict)
    valid: set = field(default_factory=set)
    dicts: dict[str, dict[str, Attribute]] = field(default_factory=dict)
    flag_values: dict[tuple[str, str, str], dict[str, Attribute]] = field(default_factory=dict)
    generic: dict[str, type[IRDLOperation] | None] = field(default_factory=dict)
    generic_built: set[str] = field(default_factory=set)  # op names read in generic form
    properties: dict[str, dict[str, Attribute]] = field(default_factory=dict)
    op_start: int = 0  # where the op being read starts (its location)


def parse_fast_op(parser, cache: FastParseCache) -> Operation | None:
    """Parse the op at the parser's current token if it has a fast shape, else None (the
    caller resumes the parser at the op's start)."""
    text: str = parser._text  # noqa: SLF001 - the parser's own source text
    start = parser._current_token.span.start  # noqa: SLF001
    pos, result = start, None
    if match := _RESULT.match(text, pos):
        result, pos = (match.start(1), match.end(1)), match.end()
    name = _NAME.match(text, pos)
    if name is None:
        generic = _GENERIC_NAME.match(text, pos)
        if generic is None:
            return None
        cache.op_start = start
        parsed = _generic_op(parser, text, generic, cache, result is not None)
        if parsed is None:
            return None
        return _finish(parser, text, parsed, result)
    if name.group(1) not in cache.shapes:
        cache.shapes[name.group(1)] = fast_shape(parser.ctx.get_optional_op(name.group(1)))
    shape = cache.shapes[name.group(1)]
    cache.op_start = start
    if shape is None or (result is None) != (shape.kind != "window"):
        return None
    reader = {"operands": _operands_op, "window": _window_op, "flag": _flag_op}[shape.kind]
    parsed = reader(parser, text, name.end(), shape.op, cache)
    if parsed is None:
        return None
    return _finish(parser, text, parsed, result)


def _finish(parser, text: str, parsed: tuple[Operation, int], result) -> Operation:
    """Continue after the op and define its result."""
    op, end = parsed
    parser._resume_from(end)  # noqa: SLF001
    if result is not None:
        span = Span(result[0], result[1], parser.lexer.input)
        parser._register_ssa_definition(text[result[0] + 1:result[1]], op.results, span)  # noqa: SLF001
    return op


def _operands_op(parser, text, pos, op_class, cache):
    """``NAME %a, %b, %c {attrs}? : T, T, T``"""
    values = _OPERANDS.match(text, pos)
    if values is None:
        return None
    names = _spans(values)
    tail = _attributes_and_types(parser, text, _SPACES.match(text, values.end()).end(), cache)
    if tail is None:
        return None
    attributes, operand_types, end = tail
    if len(operand_types) != len(names):
        return None
    return _build(parser, cache, op_class, names, operand_types, (), attributes, end)


def _window_op(parser, text, pos, op_class, cache):
    """``%r = tile.view %src[%i, %j] {attrs}? : T -> T`` (and ``tile.slot %src[%k]``)."""
    window = _INDEXED.match(text, pos)
    if window is None:
        return None
    source = _ONE_VALUE.match(text, window.start(1))
    offsets = _spans(_OPERANDS.match(text, window.start(2))) if window.group(2) else []
    tail = _attributes_and_types(parser, text, window.end(), cache, arrow=True)
    if tail is None:
        return None
    attributes, (source_type, result_type), end = tail
    operand_types = [source_type] + [SCALAR_TYPES["index"]] * len(offsets)
    return _build(parser, cache, op_class, _spans(source) + offsets, operand_types,
                  (result_type,), attributes, end)


def _flag_op(parser, text, pos, op_class, cache):
    """``sync.set_flag "SRC" -> "DST", EVENT`` with EVENT an integer or an ``index`` value
    (with an attribute dictionary: the slow path)."""
    flag = _FLAG.match(text, pos)
    if flag is None or not _END.match(text, flag.end()):
        return None
    written = flag.group(1, 2, 3)
    if written not in cache.flag_values:
        values = {"src": StringAttr(written[0]), "dst": StringAttr(written[1])}
        if written[2] is not None:
            values["event"] = IntegerAttr(int(written[2]), i64)
        cache.flag_values[written] = values
    properties = dict(cache.flag_values[written])
    if written[2] is not None:
        return _build(parser, cache, op_class, [], [], (), properties, flag.end())
    return _build(parser, cache, op_class, [flag.span(4)], [SCALAR_TYPES["index"]], (),
                  properties, flag.end())


def generic_class(op_class: type[Operation] | None) -> type[IRDLOperation] | None:
    """The op class when its generic form can be read on the fast path: an IRDL op without
    regions or successors (the generic form of every op is the same shape), else None."""
    if op_class is None or not issubclass(op_class, IRDLOperation):
        return None
    definition = op_class.get_irdl_definition()
    if definition.regions or definition.successors:
        return None
    return op_class


def _generic_op(parser, text, name: re.Match, cache, has_result: bool):
    """``"NAME"(%a, %b) <{props}>? {attrs}? : (T, T) -> T`` on one line, built as xDSL's generic
    parser builds it (``_parse_generic_operation``: no constraint is checked before the
    verifier; properties written in the attribute dictionary are moved to the properties).
    Anything unusual (a type or dictionary spelled in a way not cached, operand and type counts
    that differ, a result count that does not match, a location, a comment) returns None and
    xDSL's parser reads the op, reporting its errors."""
    op_name = name.group(1)
    if op_name not in cache.generic:
        cache.generic[op_name] = generic_class(parser.ctx.get_optional_op(op_name))
    op_class = cache.generic[op_name]
    if op_class is None:
        return None
    values = _GENERIC_OPERANDS.match(text, name.end())
    if values is None:
        return None
    names = _spans(values) if values.group(1) else []
    pos = values.end()
    properties: dict[str, Attribute] = {}
    if text.startswith("<", pos):
        found = _dictionary(parser, text, pos + 1, cache.properties, op_class, True)
        if found is None or not text.startswith(">", found[1]):
            return None
        properties, pos = found[0], _SPACES.match(text, found[1] + 1).end()
    attributes: dict[str, Attribute] = {}
    if text.startswith("{", pos):
        found = _dictionary(parser, text, pos, cache.dicts, op_class, False)
        if found is None:
            return None
        attributes, pos = found
    typed = _function_type(text, pos, cache.types)
    if typed is None:
        return None
    inputs, outputs, end = typed
    if len(inputs) != len(names) or len(outputs) != int(has_result):
        return None
    definition = op_class.get_irdl_definition()
    for prop in definition.properties:
        if prop in attributes and prop not in properties:
            properties[prop] = attributes.pop(prop)
    text_, defined = parser._text, parser.ssa_values  # noqa: SLF001
    operands = [_resolve(parser, text_, defined, lo, hi, t)
                for (lo, hi), t in zip(names, inputs, strict=True)]
    op = new_op(op_class, operands, outputs, properties, attributes,
                parser.op_location(cache.op_start))
    cache.generic_built.add(op_name)
    return op, end


def _dictionary(parser, text, pos, known: dict, op_class, properties: bool):
    """The dictionary at ``pos`` (``{...}``) and where it ends (spaces skipped), read once per
    spelling (a copy each time: ops share the attribute objects, never the dict); None when
    it is not a simple one-line dictionary."""
    simple = _SIMPLE_DICT.match(text, pos)
    if simple is None:
        return None
    spelling = simple.group(0)
    found = known.get(spelling)
    if found is None:
        parser._resume_from(pos)  # noqa: SLF001
        stack = parser._parser_state.dialect_stack  # noqa: SLF001 (as the generic parser does)
        stack.append(op_class.dialect_name())
        try:
            if properties:
                entries = parser.parse_comma_separated_list(parser.Delimiter.BRACES,
                                                            parser._parse_attribute_entry)  # noqa: SLF001
                if len({key for key, _ in entries}) != len(entries):
                    return None  # a duplicated key: xDSL reports it
                found = dict(entries)
            else:
                found = parser.parse_optional_attr_dict()
        finally:
            stack.pop()
        if parser._current_token.span.start != _SPACES.match(text, simple.end()).end():  # noqa: SLF001
            return None  # (the dictionary ended elsewhere than the pattern says)
        known[spelling] = found
    return dict(found), _SPACES.match(text, simple.end()).end()


def _function_type(text, pos, types):
    """``: (T, T) -> T`` (or ``-> ()`` / ``-> (T, T)``) at ``pos``, each type a cached or scalar
    spelling: (inputs, outputs, end) or None."""
    if not text.startswith(":", pos):
        return None
    pos = _SPACES.match(text, pos + 1).end()
    inputs = _type_list(text, pos, types)
    if inputs is None:
        return None
    inputs, pos = inputs
    if not text.startswith("->", pos):
        return None
    pos = _SPACES.match(text, pos + 2).end()
    if text.startswith("(", pos):
        outputs = _type_list(text, pos, types)
        if outputs is None:
            return None
        outputs, pos = outputs
    else:
        output = _known_type(text, pos, types)
        if output is None:
            return None
        outputs, pos = [output[0]], output[1]
    if not _END.match(text, pos):
        return None
    return inputs, outputs, pos


def _type_list(text, pos, types):
    """``(T, T)`` at ``pos``: (types, position after the spaces that follow) or None."""
    if not text.startswith("(", pos):
        return None
    pos = _SPACES.match(text, pos + 1).end()
    found = []
    if text.startswith(")", pos):
        return found, _SPACES.match(text, pos + 1).end()
    while True:
        known = _known_type(text, pos, types)
        if known is None:
            return None
        found.append(known[0])
        pos = known[1]
        if text.startswith(")", pos):
            return found, _SPACES.match(text, pos + 1).end()
        if not text.startswith(",", pos):
            return None
        pos += 1


def _known_type(text, pos, types) -> tuple[Attribute, int] | None:
    """The type spelled at ``pos`` (spaces around it skipped) and where it ends, when it is a
    scalar or a spelling the parser has cached; else None."""
    written = _TYPE.match(text, pos)
    if written is None:
        return None
    known = SCALAR_TYPES.get(written.group(1)) or types.get(written.group(1))
    return (known, written.end()) if known is not None else None


def _attributes_and_types(parser, text, pos, cache, arrow: bool = False):
    """``{attrs}? : T, T`` (or ``: T -> T``): (attributes, types, end) or None."""
    attributes: dict[str, Attribute] = {}
    types = cache.types
    if text.startswith("{", pos):
        attributes, pos = _attribute_dict(parser, text, pos, cache)
    if not text.startswith(":", pos):
        return None
    found, pos = [], pos + 1
    while True:
        known = _known_type(text, pos, types)
        if known is None:
            return None
        found.append(known[0])
        pos = known[1]
        separator = "->" if arrow and len(found) == 1 else ","
        if not text.startswith(separator, pos):
            break
        pos += len(separator)
    if (arrow and len(found) != 2) or not _END.match(text, pos):
        return None
    return attributes, found, pos


def _attribute_dict(parser, text, pos, cache) -> tuple[dict[str, Attribute], int]:
    """The attribute dictionary at ``pos`` and where it ends; one spelled exactly as one seen
    before (``{tile.stage = 0 : i64, tile.order = 3 : i64}``) is not parsed again."""
    plain = _PLAIN_DICT.match(text, pos)
    if plain is not None and (known := cache.dicts.get(plain.group(0))) is not None:
        return dict(known), _SPACES.match(text, plain.end()).end()
    parser._resume_from(pos)  # noqa: SLF001
    attributes = parser.parse_optional_attr_dict()
    end = parser._current_token.span.start  # noqa: SLF001
    if plain is not None and not text[plain.end():end].strip():
        cache.dicts[plain.group(0)] = dict(attributes)
    return attributes, _SPACES.match(text, end).end()


def _spans(values: re.Match) -> list[tuple[int, int]]:
    """(start, end) of each ``%name`` in a matched operand list."""
    return [(m.start(), m.end())
            for m in _ONE_VALUE.finditer(values.string, values.start(), values.end())]


def _build(parser, cache, op_class, names, operand_types, result_types, attributes, end):
    """The op, or None when its parts break a constraint the slow path reports itself."""
    definition = op_class.get_irdl_definition()
    properties = {key: attributes.pop(key) for key in list(attributes) if key in definition.properties}
    # by identity: types are the parser's shared ones, properties the shared ones of the caches or
    # held by the ops built, all alive while the parser is
    key = (op_class, *map(id, operand_types), None, *map(id, result_types), None,
           *[(k, id(v)) for k, v in properties.items()])
    if key not in cache.valid:
        if not _satisfies(definition, operand_types, result_types, properties):
            return None
        cache.valid.add(key)
    text, defined = parser._text, parser.ssa_values  # noqa: SLF001
    operands = [_resolve(parser, text, defined, lo, hi, t)
                for (lo, hi), t in zip(names, operand_types, strict=True)]
    op = new_op(op_class, operands, result_types, properties, attributes,
                parser.op_location(cache.op_start))
    return op, end


def new_op(op_class: type[IRDLOperation], operands: list[SSAValue], result_types, properties: dict,
           attributes: dict, location) -> Operation:
    """What ``op_class.create(...)`` builds for an op without successors or regions, in a third
    of its time (``create`` goes through generic setters and fills default properties by
    walking the definition for every op; parsing 50k ops spent a fifth of its time there).
    tests/ir/test_fast_parse.py checks both build the same op."""
    op = op_class.__new__(op_class)
    uses = tuple([Use(op, index) for index in range(len(operands))])
    for value, use in zip(operands, uses, strict=True):
        value.add_use(use)
    op._operands = SSAValues(operands)  # noqa: SLF001
    op._operand_uses = uses  # noqa: SLF001
    op.results = SSAValues([OpResult(t, op, index) for index, t in enumerate(result_types)])
    for name, value in _defaults(op_class, "properties"):
        properties.setdefault(name, value)
    for name, value in _defaults(op_class, "attributes"):
        attributes.setdefault(name, value)
    op.properties, op.attributes, op.location = properties, attributes, location
    op._successors, op._successor_uses, op.regions = (), (), ()  # noqa: SLF001
    return op


@functools.cache
def _defaults(op_class: type[IRDLOperation], kind: str) -> tuple[tuple[str, Attribute], ...]:
    """The default values ``IRDLOperation.__post_init__`` fills in for missing
    ``properties`` or ``attributes``."""
    definitions = getattr(op_class.get_irdl_definition(), kind)
    return tuple((name, d.default_value) for name, d in definitions.items()
                 if not isinstance(d, OptionalDef) and d.default_value is not None)


def _resolve(parser, text: str, defined: dict, lo: int, hi: int, wanted: Attribute):
    """The value ``%name`` at ``text[lo:hi]`` names, used with type ``wanted``. A value already
    defined with that very type object (the parser shares one per spelling) is taken directly;
    anything else (forward references, a mismatch to report) goes through xDSL's resolution."""
    values = defined.get(text[lo + 1:hi])
    if values is not None and values[0].type is wanted:
        return values[0]
    return parser.resolve_operand(UnresolvedOperand(Span(lo, hi, parser.lexer.input), 0), wanted)


def _satisfies(definition, operand_types, result_types, properties) -> bool:
    """Do the parts meet the op definition's constraints (as xDSL's format parser checks)?"""
    try:
        context = VerificationContext()
        for (_, operand), kind in zip(definition.operands, _grouped(definition, operand_types),
                                      strict=True):
            operand.constr.verify(kind, context)
        for (_, result), kind in zip(definition.results, result_types, strict=True):
            result.constr.verify((kind,), context)
        for prop_name, prop in definition.properties.items():
            if prop_name in properties:
                prop.constr.verify(properties[prop_name], context)
            elif not isinstance(prop, OptionalDef):
                return False
    except (VerifyException, ValueError):
        return False
    return True


def _grouped(definition, operand_types) -> list[tuple[Attribute, ...]]:
    """Operand types per operand definition: one each, the rest for a trailing variadic."""
    fixed = len(definition.operands) - 1
    if definition.operands and type(definition.operands[-1][1]) is not OperandDef:
        return [(t,) for t in operand_types[:fixed]] + [tuple(operand_types[fixed:])]
    return [(t,) for t in operand_types]
