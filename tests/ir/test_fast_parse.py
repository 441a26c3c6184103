"""The parser's fast path reads exactly what xDSL's own parser reads (ir/fast_parse.py)."""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import FileLineColLoc

from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text, print_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
INPUTS = sorted((ROOT / "examples").glob("*.mlir")) + sorted((ROOT / "tests" / "lit").rglob("*.mlir"))


def _read(text: str, fast_path: bool):
    """(generic text, every op's location) or the error, as the user would see them."""
    try:
        module = parse_text(text, "k.mlir", fast_path=fast_path)
    except TileschedError as err:
        return "error", str(err)
    locations = [(op.name, op.location.line.data, op.location.column.data)
                 for op in module.walk() if isinstance(op.location, FileLineColLoc)]
    return print_module(module, generic=True), locations


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_and_xdsl_parsers_agree_on_every_example_and_lit_input(path):
    text = path.read_text()
    assert _read(text, True) == _read(text, False)


FUNC = 'func.func @k(%g: memref<4x8xf32, "GM">, %u: memref<4x8xf32, "UB">, %m: memref<2x4x8xf32, "UB">) {{\n{body}\n  func.return\n}}\n'
TYPES = 'memref<4x8xf32, "UB">'


@pytest.mark.parametrize("body", [
    # each shape, written twice so that the second one meets the cached types
    f"  tile.add %u, %u, %u : {TYPES}, {TYPES}, {TYPES}\n  tile.add %u, %u, %u : {TYPES}, {TYPES}, {TYPES}",
    f'  tile.load %g, %u {{pipe = "MTE2", tile.stage = 1 : i64}} : memref<4x8xf32, "GM">, {TYPES}',
    f"  tile.fill %u {{value = 1.0 : f32}} : {TYPES}\n  tile.fill %u {{value = 2 : i64}} : {TYPES}",
    f"  tile.fill %u : {TYPES}",  # a required property missing
    f'  tile.fill %u {{value = "x"}} : {TYPES}',  # a property of the wrong kind
    f"  tile.exp %u, %u : {TYPES}, f32",  # an operand of the wrong kind
    f"  tile.exp %u, %u : {TYPES}",  # one type short
    f"  tile.exp %u, %g : {TYPES}, {TYPES}",  # used with another type than declared
    f"  tile.exp %u, %nope : {TYPES}, {TYPES}",  # undefined value
    f"  tile.exp %u, %u : {TYPES}, {TYPES} // trailing comment",
    f'  tile.exp %u, %u : {TYPES}, {TYPES} loc("elsewhere.mlir":7:9)',
    "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    f"  %s = tile.slot %m[%c1] : memref<2x4x8xf32, \"UB\"> -> {TYPES}\n"
    f"  %s2 = tile.slot %m[%c0] : memref<2x4x8xf32, \"UB\"> -> {TYPES}\n"
    f"  %v = tile.view %g[%c0, %c1] {{sizes = array<i64: 2, 2>}} : memref<4x8xf32, \"GM\"> -> memref<2x2xf32, \"GM\">\n"
    f"  tile.copy %s, %s2 : {TYPES}, {TYPES}",
    "  %c0 = arith.constant 0 : index\n"
    f"  %s = tile.slot %m[%c0] : memref<2x4x8xf32, \"UB\"> -> {TYPES}\n"
    f"  %s = tile.slot %m[%c0] : memref<2x4x8xf32, \"UB\"> -> {TYPES}",  # redefinition
    f"  tile.exp %later, %u : {TYPES}, {TYPES}\n  %c0 = arith.constant 0 : index\n"
    f"  %later = tile.slot %m[%c0] : memref<2x4x8xf32, \"UB\"> -> {TYPES}",  # forward reference
    '  sync.set_flag "MTE2" -> "V", 3\n  sync.wait_flag "MTE2" -> "V", 3',
    '  sync.set_flag "MTE2" -> "V", 99999999999999999999',
    '  sync.set_flag "MTE2" -> "V", 3 {note = 1 : i64}',
    # event ids as index operands (per-slot flags)
    '  %c0 = arith.constant 0 : index\n  sync.set_flag "MTE2" -> "V", %c0\n'
    '  sync.wait_flag "MTE2" -> "V", %c0\n  sync.set_flag "MTE2" -> "V", %c0 {note = 1 : i64}',
    '  sync.set_flag "MTE2" -> "V", %nope',  # undefined value
    '  sync.set_flag "MTE2" -> "V", %later\n  %later = arith.constant 1 : index',  # forward
    '  %f = arith.constant 1.0 : f32\n  sync.set_flag "MTE2" -> "V", %f',  # not an index
    f"  tile.add %u,%u,   %u   :   {TYPES},{TYPES} ,  {TYPES}",
])
def test_fast_and_xdsl_parsers_agree_on_each_shape_and_its_errors(body):
    text = FUNC.format(body=body)
    assert _read(text, True) == _read(text, False)


def test_the_shapes_of_the_fast_path():
    from tilesched.ir import sync, tile
    from tilesched.ir.fast_parse import fast_shape

    kinds = {cls.name: (shape.kind if (shape := fast_shape(cls)) else None)
             for cls in (*tile.TILE_OPS, *sync.Sync.operations)}
    assert kinds["tile.add"] == kinds["tile.matmul"] == kinds["tile.fill"] == "operands"
    assert kinds["tile.view"] == kinds["tile.slot"] == "window"
    assert kinds["sync.set_flag"] == kinds["sync.wait_flag"] == "flag"
    assert kinds["tile.call"] is kinds["tile.stage_border"] is kinds["sync.barrier"] is None


def test_the_fast_path_reads_the_usual_ops():
    """Every op of a synchronized, sliced kernel but the constants is built by the fast path."""
    from tilesched.ir.text import _LocatingParser, make_context

    slot = f'tile.slot %m[%c0] : memref<2x4x8xf32, "UB"> -> {TYPES}'
    body = "\n".join(["  %c0 = arith.constant 0 : index"] + [
        f"  %s{k} = {slot}\n  tile.add %s{k}, %u, %u : {TYPES}, {TYPES}, {TYPES}\n"
        f'  sync.set_flag "V" -> "MTE3", 0\n  sync.wait_flag "V" -> "MTE3", 0' for k in range(2)])
    text = FUNC.format(body=body)
    parser = _LocatingParser(make_context(), text, "k.mlir")
    parser.parse_module()
    built = {key[0].name for key in parser._fast.valid}  # noqa: SLF001
    assert built == {"tile.slot", "tile.add", "sync.set_flag", "sync.wait_flag"}


def _state(op):
    """Everything an op holds, with its results and uses described by value."""
    state = dict(vars(op))
    state["results"] = [(type(r), r.type, r.index, r.op is op) for r in op.results]
    state["_operand_uses"] = [(u.operation is op, u.index) for u in op._operand_uses]
    return state


def test_new_op_builds_what_create_builds():
    """The fast path's op constructor leaves an op in the state ``Operation.create`` does
    (attribute defaults filled, uses linked), for every op without regions of the examples."""
    from tilesched.ir.fast_parse import new_op

    built = 0
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        for op in parse_text(path.read_text(), path.name).walk():
            if op.regions or op.successors:
                continue
            args = (list(op.operands), [r.type for r in op.results])
            expected = type(op).create(operands=args[0], result_types=args[1],
                                       properties=dict(op.properties),
                                       attributes=dict(op.attributes), location=op.location)
            fast = new_op(type(op), *args, dict(op.properties), dict(op.attributes), op.location)
            assert _state(fast) == _state(expected), op.name
            for value in op.operands:
                assert sum(u.operation is fast for u in value.uses) == \
                    sum(u.operation is expected for u in value.uses)
            built += 1
    assert built > 100


# ---------------------------------------------------------------------- generic form

GTYPES = f"({TYPES}, {TYPES}, {TYPES})"


@pytest.mark.parametrize("body", [
    # the generic form of each op kind large programs hold, written twice (cached the 2nd time)
    f'  "tile.add"(%u, %u, %u) : {GTYPES} -> ()\n  "tile.add"(%u, %u, %u) : {GTYPES} -> ()',
    f'  "tile.load"(%g, %u) <{{pipe = "MTE2"}}> {{tile.stage = 1 : i64}} : '
    f'(memref<4x8xf32, "GM">, {TYPES}) -> ()',
    f'  "tile.load"(%g, %u) {{pipe = "MTE2", tile.stage = 1 : i64}} : '
    f'(memref<4x8xf32, "GM">, {TYPES}) -> ()',  # a property in the attribute dictionary
    f'  "tile.fill"(%u) <{{value = 1.0 : f32}}> : ({TYPES}) -> ()',
    f'  "tile.fill"(%u) : ({TYPES}) -> ()',  # a required property missing: the verifier says so
    '  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
    '  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index\n'
    '  %s = "arith.addi"(%c0, %c1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index\n'
    '  %r = "arith.remui"(%s, %c1) : (index, index) -> index\n'
    f'  %v = "tile.slot"(%m, %r) : (memref<2x4x8xf32, "UB">, index) -> {TYPES}\n'
    f'  %w = "tile.view"(%g, %c0, %c1) <{{sizes = array<i64: 2, 2>}}> : '
    '(memref<4x8xf32, "GM">, index, index) -> memref<2x2xf32, "GM">\n'
    '  "sync.set_flag"(%r) {src = "MTE2", dst = "V"} : (index) -> ()\n'
    '  "sync.wait_flag"(%r) <{src = "MTE2", dst = "V"}> : (index) -> ()\n'
    '  "sync.set_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()\n'
    '  "sync.wait_flag"() <{src = "MTE2", dst = "V", event = 0 : i64}> : () -> ()\n'
    '  "sync.pipe_barrier"() <{pipe = "V"}> : () -> ()',
    '  %a = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4x8xf32, "UB">\n'
    f'  "tile.exp"(%a, %a) : ({TYPES}, {TYPES}) -> ()',
    '  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
    '  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index\n'
    '  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index\n'
    '  "scf.for"(%c0, %c4, %c1) ({\n  ^bb0(%i: index):\n'
    f'    "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> ()\n    "scf.yield"() : () -> ()\n'
    '  }) : (index, index, index) -> ()\n'
    '  %t = "arith.cmpi"(%c0, %c1) <{predicate = 0 : i64}> : (index, index) -> i1\n'
    '  "scf.if"(%t) ({\n'
    f'    "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> ()\n    "scf.yield"() : () -> ()\n'
    '  }, {\n  }) : (i1) -> ()',
    # errors: each must be reported as xDSL's parser reports it
    f'  "tile.add"(%u, %u) : {GTYPES} -> ()',  # fewer operands than types
    f'  "tile.exp"(%u, %nope) : ({TYPES}, {TYPES}) -> ()',  # undefined value
    f'  "tile.exp"(%u, %g) : ({TYPES}, {TYPES}) -> ()',  # used with another type than declared
    f'  %r = "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> ()',  # a result to bind, none produced
    f'  "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> {TYPES}',  # a result not bound
    f'  "tile.nope"(%u, %u) : ({TYPES}, {TYPES}) -> ()',  # an unknown op
    f'  "tile.exp"(%u, %u) <{{a = 1, a = 2}}> : ({TYPES}, {TYPES}) -> ()',  # duplicated key
    f'  "tile.exp"(%u, %u) {{a = 1, a = 2}} : ({TYPES}, {TYPES}) -> ()',
    f'  "tile.exp"(%u, %u) <{{a = }}> : ({TYPES}, {TYPES}) -> ()',  # a syntax error in a dict
    f'  "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> () loc("elsewhere.mlir":7:9)',
    f'  "tile.exp"(%u, %u) : ({TYPES}, {TYPES}) -> () // a comment',
    f'  "tile.exp"(%u,%u)<{{}}>{{}}:({TYPES},{TYPES})->()',  # no spaces
    f'  "tile.exp"(%later, %u) : ({TYPES}, {TYPES}) -> ()\n'  # forward reference
    '  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
    f'  %later = "tile.slot"(%m, %c0) : (memref<2x4x8xf32, "UB">, index) -> {TYPES}',
    '  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
    '  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index',  # redefinition
    '  "sync.set_flag"() {src = "MTE2", dst = "V", event = "x" : i64} : () -> ()',  # bad literal
])
def test_fast_and_xdsl_parsers_agree_on_the_generic_form_and_its_errors(body):
    text = FUNC.format(body=body)
    assert _read(text, True) == _read(text, False)


def test_the_fast_path_reads_the_generic_form_of_the_usual_ops():
    from tilesched.ir.text import _LocatingParser, make_context

    text = FUNC.format(body='  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
                       f'  %s = "tile.slot"(%m, %c0) : (memref<2x4x8xf32, "UB">, index) -> {TYPES}\n'
                       f'  "tile.add"(%s, %u, %u) : {GTYPES} -> ()\n'
                       '  "sync.set_flag"(%c0) {src = "V", dst = "MTE3"} : (index) -> ()\n'
                       '  %a = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : '
                       '() -> memref<4x8xf32, "UB">')
    parser = _LocatingParser(make_context(), text, "k.mlir")
    parser.parse_module()
    assert parser._fast.generic_built == {  # noqa: SLF001
        "arith.constant", "tile.slot", "tile.add", "sync.set_flag", "memref.alloc"}


@st.composite
def programs(draw):
    """A random synchronized kernel (DSL): loops, slots, views, tile ops with annotations,
    flags with constant and operand ids, conditionals."""
    from tilesched.ir.dsl import Kernel

    k = Kernel("k", target="ascend-a2")
    g = k.arg("g", (64, 16), "f16", "GM")
    ub = k.alloc((2, 16, 16), "f16", "UB", name="ub")
    tmp = k.alloc((16, 16), "f16", "UB", name="tmp")
    steps = draw(st.lists(st.sampled_from(["load", "store", "vec", "flag", "opflag", "if",
                                           "scalar", "bar"]), min_size=1, max_size=12))
    for i in k.range(draw(st.integers(1, 4)), name="i"):
        for n, what in enumerate(steps):
            slot = ub.slot(i % 2)
            stage = {"stage": n % 2, "order": n} if n % 3 == 0 else {}
            if what == "load":
                k.load(g.view((i * 16, 0), (16, 16)), slot, **stage)
            elif what == "store":
                k.store(slot, g.view((i * 16, 0), (16, 16)))
            elif what == "vec":
                k.add(slot, tmp, tmp, **stage)
            elif what == "flag":
                k.set_flag("MTE2", "V", n % 8)
                k.wait_flag("MTE2", "V", n % 8)
            elif what == "opflag":
                k.set_flag("V", "MTE3", (i + n) % 2 + 4)
                k.wait_flag("V", "MTE3", (i + n) % 2 + 4)
            elif what == "if":
                with k.if_(k.cmp("eq", i, n % 3)):
                    k.exp(tmp, slot)
            elif what == "scalar":
                k.muls(tmp, 0.5, tmp)
            elif what == "bar":
                k.barrier_all()
    return k.module()


@settings(max_examples=30, deadline=None)
@given(programs())
def test_generic_and_custom_forms_of_a_program_parse_to_the_same_ir(module):
    custom, generic = print_module(module), print_module(module, generic=True)
    assert _read(custom, True) == _read(custom, False)
    assert _read(generic, True) == _read(generic, False)
    assert _read(custom, True)[0] == _read(generic, True)[0] == generic


@settings(max_examples=60, deadline=None)
@given(programs(), st.data())
def test_damaged_generic_text_gets_the_same_error_either_way(module, data):
    """A generic-form program with a few characters deleted, doubled or replaced: the fast path
    reports what xDSL's parser reports (or reads the same IR)."""
    text = print_module(module, generic=True)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text) - 1))
        what = data.draw(st.sampled_from(["delete", "double", "replace"]))
        if what == "delete":
            text = text[:at] + text[at + 1:]
        elif what == "double":
            text = text[:at] + text[at] + text[at:]
        else:
            text = text[:at] + data.draw(st.sampled_from(list('%,()<>{}":0a x'))) + text[at + 1:]
    assert _read(text, True) == _read(text, False)
