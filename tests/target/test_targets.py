"""Targets as data: the built-ins, user TOML files, validation errors, routing and latency."""

from __future__ import annotations

import math

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.target import OperandShape, builtin_target_names, load_target, parse_target

MINIMAL = """
name = "mini"
sync = "flags"
event_limit = 2
issuers = ["S"]
[spaces]
GM = { global = true }
UB = { capacity = 1024 }
[units.S]
kind = "inline"
[units.V]
kind = "queued"
fixed = 10
bytes_per_cycle = 32
[[routes]]
ops = ["*"]
src = ["UB", "GM"]
dst = ["UB"]
unit = "V"
"""


def test_builtin_targets_match_the_contract():
    assert builtin_target_names() == ["amd-gfx1250", "amd-gfx950", "ascend-910a", "ascend-a2",
                                    "ascend-a2-mix", "cuda-sm80"]
    a2, a910 = load_target("ascend-a2"), load_target("ascend-910a")
    assert (a2.event_limit, a910.event_limit) == (8, 4)
    assert set(a2.spaces) == {"GM", "L1", "L0A", "L0B", "L0C", "UB"}
    assert [a2.spaces[s].capacity for s in ("L1", "L0A", "L0B", "L0C", "UB")] == [
        512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 192 * 1024]
    assert load_target("cuda-sm80").sync == "groups"
    assert load_target("amd-gfx950").issuers == ("low", "high")


@pytest.mark.parametrize(("op", "reads", "dst", "unit"), [
    ("tile.load", ("GM",), "L1", "MTE2"),
    ("tile.load", ("GM",), "UB", "MTE2"),
    ("tile.copy", ("L1",), "L0A", "MTE1"),
    ("tile.copy", ("L1",), "L0B", "MTE1"),
    ("tile.matmul", ("L0A", "L0B"), "L0C", "M"),
    ("tile.store", ("L0C",), "GM", "FIX"),
    ("tile.copy", ("L0C",), "L1", "FIX"),
    ("tile.store", ("UB",), "GM", "MTE3"),
    ("tile.copy", ("UB",), "UB", "V"),
    ("tile.exp", ("UB",), "UB", "V"),
])
def test_ascend_routing(op, reads, dst, unit):
    assert load_target("ascend-a2").route(op, reads, dst).unit == unit


def test_cuda_and_amd_routing():
    cuda = load_target("cuda-sm80")
    rule = cuda.route("tile.load", ("global",), "shared")
    assert (rule.unit, rule.async_queue) == ("ASYNC0", 0)
    assert cuda.route("tile.matmul", ("local", "local"), "local").unit == "T"
    amd = load_target("amd-gfx950")
    assert amd.route("tile.load", ("global",), "LDS").unit == "LDS"
    assert amd.route("tile.copy", ("LDS",), "local").unit == "LDS"
    assert amd.route("tile.matmul", ("local", "local"), "local").unit == "SIMD"


def test_latency_model():
    a2 = load_target("ascend-a2")
    rule = a2.route("tile.copy", ("L1",), "L0A")
    tile = OperandShape((128, 64), 2, "f16")  # 16 KiB at 441 GiB/s, 1.85 GHz, no fixed term
    assert a2.cycles("tile.copy", rule, [tile, tile]) == math.ceil(16384 / (441 * 2**30 / 1.85e9))
    mm = a2.route("tile.matmul", ("L0A", "L0B"), "L0C")
    a, b = OperandShape((128, 64), 2, "f16"), OperandShape((64, 128), 2, "f16")
    c = OperandShape((128, 128), 4, "f32")
    # a 6-cycle head + one 16x16x16 f16 fractal per cycle
    assert a2.cycles("tile.matmul", mm, [a, b, c]) == 6 + (128 // 16) * (64 // 16) * (128 // 16)


def test_user_toml_file_is_accepted_by_path(tmp_path):
    path = tmp_path / "mini.toml"
    path.write_text(MINIMAL)
    target = load_target(str(path))
    assert target.name == "mini" and target.route("tile.exp", ("UB",), "UB").unit == "V"


@pytest.mark.parametrize(("edit", "message", "line"), [
    (('kind = "queued"', 'kind = "weird"'), "units.V.kind: expected one of", 12),
    (("fixed = 10", "fixed = -1"), "units.V.fixed: must be non-negative, got -1", 13),
    (('unit = "V"', 'unit = "W"'), "routes[0].unit: unknown unit 'W'", 19),
    (('src = ["UB", "GM"]', 'src = ["XX"]'), "routes[0].src: unknown space 'XX'", 17),
    (('sync = "flags"', 'sync = "semaphores"'), "sync: expected one of", 3),
    (("event_limit = 2", "event_limit = true"), "event_limit: expected a number, got a boolean", 4),
    (("bytes_per_cycle = 32", "bytes_per_cycle = 32\ncolour = 3"), "units.V.colour: unknown key", 15),
    (("[spaces]", "[spaces\n"), "invalid TOML", 6),
])
def test_validation_errors_are_located(edit, message, line):
    with pytest.raises(TileschedError) as info:
        parse_target(MINIMAL.replace(*edit), "mini.toml")
    assert message in info.value.message
    assert str(info.value.loc).startswith(f"mini.toml:{line}:")


@pytest.mark.parametrize(("edit", "message", "line"), [
    (("bytes_per_cycle = 32", "bytes_per_cycle = nan"), "units.V.bytes_per_cycle: must be a finite number, got nan", 14),
    (("bytes_per_cycle = 32", "bytes_per_cycle = inf"), "must be a finite number, got inf", 14),
    (("bytes_per_cycle = 32", "bytes_per_cycle = 0"), "units.V.bytes_per_cycle: must be positive (at least 0.001), got 0", 14),
    (("bytes_per_cycle = 32", "bytes_per_cycle = 1e-300"), "must be positive (at least 0.001), got 1e-300", 14),
    (("bytes_per_cycle = 32", "bytes_per_cycle = 1e300"), "must be at most 1e+09, got 1e+300", 14),
    (("fixed = 10", "fixed = 99999999999999"), "units.V.fixed: must be at most 1e+09", 13),
    (("fixed = 10", "fixed = 1.5"), "units.V.fixed: expected int, got float 1.5", 13),
    (("bytes_per_cycle = 32", "bytes_per_cycle = 32\nop_factor = { \"tile.exp\" = nan }"),
     "units.V.op_factor.tile.exp: must be a finite number, got nan", 15),
    (("event_limit = 2", "event_limit = 0"), "event_limit: must be at least 1, got 0", 4),
    (("capacity = 1024", "capacity = -5"), "spaces.UB.capacity: must be non-negative, got -5", 8),
    (('unit = "V"', 'unit = "V"\nbytes_per_cycle = -inf'), "routes[0].bytes_per_cycle: must be a finite", 20),
])
def test_numbers_must_be_finite_and_sane(edit, message, line):
    """nan, 0 or 1e-300 bytes per cycle gave cycles below the program's own bound or with 300
    digits (issue 11): every number has a range."""
    with pytest.raises(TileschedError) as info:
        parse_target(MINIMAL.replace(*edit), "mini.toml")
    assert message in info.value.message
    assert str(info.value.loc).startswith(f"mini.toml:{line}:")


def test_missing_required_key():
    with pytest.raises(TileschedError, match="missing required key 'routes'"):
        parse_target(MINIMAL.split("[[routes]]")[0], "mini.toml")
