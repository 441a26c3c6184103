"""The fused-execution model of a unit: TOML schema, validation, and the duration formula."""

from __future__ import annotations

import pytest

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
