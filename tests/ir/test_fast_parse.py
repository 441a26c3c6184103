"""The parser's fast path reads exactly what xDSL's own parser reads (ir/fast_parse.py)."""

from __future__ import annotations

import pathlib

import pytest
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
