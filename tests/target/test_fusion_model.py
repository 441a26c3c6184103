"""The fused-execution model of a unit: TOML schema, validation, and the duration formula."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.diagnostics import TileschedError
from tilesched.target import OperandShape, load_target, parse_target

MINIMAL = """
name = "mini"
sync = "flags"
event_limit = 2
issuers = ["S"]
[spaces]
UB = { capacity = 1048576 }
[units.S]
kind = "inline"
[units.V]
kind = "queued"
fixed = 10
bytes_per_cycle = 32
[units.V.fusion]
member_fixed = 2
register_bytes_per_cycle = 128
live_tiles = 4
[[routes]]
ops = ["*"]
unit = "V"
"""


def test_ascend_targets_model_fused_spans_and_others_do_not():
    for name in ("ascend-a2", "ascend-910a"):
        fusion = load_target(name).units["V"].fusion
        assert fusion is not None and fusion.live_tiles >= 2
    for name in ("cuda-sm80", "amd-gfx950", "amd-gfx1250"):
        assert all(unit.fusion is None for unit in load_target(name).units.values())


def test_fused_cycles_formula():
    target = parse_target(MINIMAL, "mini.toml")
    rule = target.route("tile.add", ("UB", "UB"), "UB")
    tile = OperandShape((32, 32), 4)  # 4096 bytes: 128 cycles through UB, 32 in registers
    three = [tile, tile, tile]
    plain = target.cycles("tile.add", rule, three)
    assert plain == 10 + 128
    assert target.fused_cycles("tile.add", rule, three, [False] * 3, head=True) == plain
    assert target.fused_cycles("tile.add", rule, three, [False] * 3, head=False) == 2 + 128
    # the slowest stream decides: one operand through UB keeps the UB rate
    assert target.fused_cycles("tile.add", rule, three, [True, True, False], head=False) == 2 + 128
    assert target.fused_cycles("tile.add", rule, three, [True, True, True], head=False) == 2 + 32
    assert target.units["V"].fusion.spill_cycles(32 * 32, 32) == 2 * 128


@pytest.mark.parametrize(("edit", "message", "line"), [
    (("live_tiles = 4", "live_tiles = 1"), "units.V.fusion.live_tiles: must be at least 2", 17),
    (("register_bytes_per_cycle = 128", "register_bytes_per_cycle = 0"),
     "units.V.fusion.register_bytes_per_cycle: must be positive", 16),
    (("member_fixed = 2", "member_fixed = -1"), "units.V.fusion.member_fixed: must be non-negative", 15),
    (("live_tiles = 4", "live_tiles = 4\nregisters = 3"), "units.V.fusion.registers: unknown key", 18),
])
def test_fusion_model_errors_are_located(edit, message, line):
    with pytest.raises(TileschedError) as info:
        parse_target(MINIMAL.replace(*edit), "mini.toml")
    assert message in info.value.message
    assert str(info.value.loc).startswith(f"mini.toml:{line}:")


# --- the fused-op time against the per-op model (issue 30 follow-up) ---------------------------

A2 = load_target("ascend-a2")
UB_RULE = A2.route("tile.add", ("UB", "UB"), "UB")
FORMULA_OPS = sorted(op for op in A2.units["V"].formulas if op != "tile.reshape")


def _operands(op: str, dtype: str, rows: int, cols: int) -> list[OperandShape]:
    """The memref operands of ``op`` on a rows x cols tile: reductions write a column, the
    row-broadcast ops read one, casts write the other float type, fills only write."""
    size = {"f16": 2, "f32": 4}
    tile = OperandShape((rows, cols), size[dtype], dtype)
    column = OperandShape((rows, 1), size[dtype], dtype)
    if op in ("tile.rowmax", "tile.rowsum"):
        return [tile, column]
    if op.startswith("tile.rowexpand_"):
        return [tile, column, tile]
    if op == "tile.cast":
        other = "f32" if dtype == "f16" else "f16"
        return [tile, OperandShape((rows, cols), size[other], other)]
    if op == "tile.fill":
        return [tile]
    if op in ("tile.add", "tile.sub", "tile.mul", "tile.max", "tile.min", "tile.div"):
        return [tile, tile, tile]
    return [tile, tile]


op_shapes = st.tuples(st.sampled_from(FORMULA_OPS), st.sampled_from(["f16", "f32"]),
                      st.integers(1, 128), st.integers(1, 700))


@settings(max_examples=200, deadline=None)
@given(op_shapes)
def test_a_one_op_span_through_ub_costs_the_vendor_formula(case):
    """The docstring's invariant: first in its span with every stream through UB, an op costs
    exactly what it costs unfused - on ascend-a2 the vendor's formula."""
    op, dtype, rows, cols = case
    operands = _operands(op, dtype, rows, cols)
    rule = A2.route(op, ("UB",) * (len(operands) - 1), "UB")
    formula = A2.units["V"].formulas[op].cycles(dtype, (rows, cols))
    assert formula is not None and A2.cycles(op, rule, operands) == formula
    assert A2.fused_cycles(op, rule, operands, [False] * len(operands), head=True) == formula


@settings(max_examples=200, deadline=None)
@given(op_shapes, st.data())
def test_a_fused_op_is_never_dearer_than_unfused_and_registers_never_cost_more(case, data):
    op, dtype, rows, cols = case
    operands = _operands(op, dtype, rows, cols)
    rule = A2.route(op, ("UB",) * (len(operands) - 1), "UB")
    unfused = A2.cycles(op, rule, operands)
    inside = data.draw(st.lists(st.booleans(), min_size=len(operands), max_size=len(operands)))
    head = data.draw(st.booleans())
    fused = A2.fused_cycles(op, rule, operands, inside, head)
    assert fused <= unfused
    # one more operand in registers never makes the op dearer, nor does being a later member
    for k in range(len(operands)):
        more = [flag or j == k for j, flag in enumerate(inside)]
        assert A2.fused_cycles(op, rule, operands, more, head) <= fused
    assert A2.fused_cycles(op, rule, operands, inside, head=False) <= fused
    # everything in registers: the loop instruction and the streaming part at the register rate
    model = A2.units["V"].fusion
    startup, streaming = A2.units["V"].formulas[op].split(dtype, (rows, cols))
    everything = A2.fused_cycles(op, rule, operands, [True] * len(operands), head=False)
    ratio = A2.bandwidth(rule) / model.register_bytes_per_cycle
    assert everything == model.member_fixed + math.ceil(streaming * ratio)
    assert startup + streaming == unfused


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["ascend-910a", "mini"]),
       st.sampled_from(["tile.add", "tile.exp", "tile.rowmax", "tile.muls"]),
       st.integers(1, 64), st.integers(1, 512), st.data())
def test_targets_without_formulas_keep_the_byte_model(name, op, rows, cols, data):
    """No formula rows (ascend-910a, a user target; or a bf16 tile on ascend-a2): startup
    ``fixed``, each operand's bytes at the route's rate or the register rate, times the op's
    factor - the model fused spans had before the formulas."""
    target = parse_target(MINIMAL, "mini.toml") if name == "mini" else load_target(name)
    operands = [OperandShape((rows, cols), 4, "f32"), OperandShape((rows, 1), 4, "f32")]
    if name == "ascend-910a":
        assert not target.units["V"].formulas
    rule = target.route(op, ("UB",), "UB")
    unit, model = target.units[rule.unit], target.units[rule.unit].fusion
    inside = data.draw(st.lists(st.booleans(), min_size=2, max_size=2))
    head = data.draw(st.booleans())
    rates = [model.register_bytes_per_cycle if k else target.bandwidth(rule) for k in inside]
    streams = [math.ceil(o.bytes / rate) for o, rate in zip(operands, rates, strict=True)]
    startup = (unit.fixed if rule.fixed is None else rule.fixed) if head else model.member_fixed
    expected = startup + math.ceil(max(streams) * unit.op_factor.get(op, 1.0))
    assert target.fused_cycles(op, rule, operands, inside, head) == expected
    if A2.units["V"].formulas[op].lookup("bf16", cols) is not None:
        return  # a row for any element type (tile.exp): priced by the formula
    bf16 = [OperandShape(o.shape, 2, "bf16") for o in operands]
    a2_rule = A2.route(op, ("UB",), "UB")
    v = A2.units["V"]
    byte_model = v.fixed + math.ceil(math.ceil(rows * cols * 2 / A2.bandwidth(a2_rule))
                                     * v.op_factor.get(op, 1.0))
    assert A2.fused_cycles(op, a2_rule, bf16, [False, False], head=True) == \
        A2.cycles(op, a2_rule, bf16) == byte_model
