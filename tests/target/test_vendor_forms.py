"""The vendor's latency forms as target data: vector formulas by (op, dtype, columns), the cube's
head + fractals, per-route element sizes, and the clock (docs/targets.md, "Latency model")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.diagnostics import TileschedError
from tilesched.target import OperandShape, load_target, parse_target
from tilesched.target.model import VectorFormula

TARGET = """
name = "vendor-forms"
sync = "flags"
event_limit = 2
issuers = ["S"]
frequency_hz = 2e9
[spaces]
GM = { global = true }
UB = { capacity = 1048576 }
L0A = { capacity = 65536 }
L0B = { capacity = 65536 }
L0C = { capacity = 65536 }
[units.S]
kind = "inline"
[units.V]
kind = "queued"
fixed = 10
bytes_per_cycle = 32
[units.V.formulas]
"tile.sub" = [
    ["f32", 32, 0.5, 10],
    ["f32", 64, 0.25, 20],
    ["f32", "*", 1.0, 0],
    ["f16", 64, 0.125, 4.5],
]
"tile.exp" = [
    ["*", "*", 0.0314, 30.1],
]
"tile.add" = "tile.sub"
[units.M]
kind = "queued"
fixed = 1
[units.M.matmul]
head = 6
cycles_per_fractal = { f16 = 1, f32 = 2 }
[units.FIX]
kind = "queued"
bytes_per_cycle = 8
[[routes]]
ops = ["tile.matmul"]
unit = "M"
[[routes]]
ops = ["tile.store"]
src = ["L0C"]
unit = "FIX"
element_bytes = 2
[[routes]]
ops = ["tile.store"]
src = ["UB"]
unit = "FIX"
[[routes]]
ops = ["*"]
unit = "V"
"""


@pytest.fixture(name="target")
def fixture_target():
    return parse_target(TARGET, "forms.toml")


def _vector(target, op: str, shape: tuple[int, ...], dtype: str, size: int = 4) -> int:
    tile = OperandShape(shape, size, dtype)
    return target.cycles(op, target.route(op, ("UB",), "UB"), [tile, tile, tile])


def test_formula_rows_exact_any_columns_and_nearest(target):
    assert _vector(target, "tile.sub", (8, 32), "f32") == round(0.5 * 256 + 10)
    assert _vector(target, "tile.sub", (8, 64), "f32") == round(0.25 * 512 + 20)
    # no row for 48 columns: the dtype's any-columns row wins over the nearest numbered row
    assert _vector(target, "tile.sub", (8, 48), "f32") == 384
    # f16 has only a 64-column row: every column count uses it (the nearest)
    assert _vector(target, "tile.sub", (4, 16), "f16", 2) == 13  # 0.125 * 64 + 4.5 = 12.5, half up
    # the vendor rounds halves away from zero (llround): 0.125 * 4 * 64 + 4.5 = 36.5 -> 37
    assert _vector(target, "tile.sub", (4, 64), "f16", 2) == 37


def test_nearest_column_tie_takes_the_larger(tmp_path):
    text = TARGET.replace('    ["f32", "*", 1.0, 0],\n', "")
    target = parse_target(text, "forms.toml")
    assert _vector(target, "tile.sub", (1, 48), "f32") == round(0.25 * 48 + 20)  # 32 and 64 tie
    assert _vector(target, "tile.sub", (1, 40), "f32") == round(0.5 * 40 + 10)   # 32 is nearer
    assert _vector(target, "tile.sub", (1, 1000), "f32") == round(0.25 * 1000 + 20)


def test_any_dtype_rows_alias_and_fallback(target):
    assert _vector(target, "tile.exp", (16, 128), "bf16", 2) == round(0.0314 * 2048 + 30.1)
    for shape, dtype in (((8, 32), "f32"), ((8, 48), "f32"), ((2, 64), "f16")):
        assert _vector(target, "tile.add", shape, dtype) == _vector(target, "tile.sub", shape, dtype)
    # no row for the element type, and an op without formulas: fixed + bytes / bytes_per_cycle
    assert _vector(target, "tile.sub", (8, 32), "i32") == 10 + 8 * 32 * 4 // 32
    assert _vector(target, "tile.mul", (8, 32), "f32") == 10 + 8 * 32 * 4 // 32


def test_matmul_head_and_fractals_by_dtype(target):
    rule = target.route("tile.matmul", ("L0A", "L0B"), "L0C")

    def matmul(m: int, k: int, n: int, dtype: str, size: int) -> int:
        return target.cycles("tile.matmul", rule, [OperandShape((m, k), size, dtype),
                                                    OperandShape((k, n), size, dtype),
                                                    OperandShape((m, n), 4, "f32")])

    assert matmul(128, 256, 64, "f16", 2) == 1 + 6 + 8 * 16 * 4     # K tile 32 B / 2 B = 16
    assert matmul(128, 256, 64, "f32", 4) == 1 + 6 + 2 * 8 * 32 * 4  # K tile 8, 2 cycles each
    assert matmul(17, 17, 17, "f16", 2) == 1 + 6 + 2 * 2 * 2         # partial fractals round up
    assert matmul(16, 32, 16, "i8", 1) == 1 + 6 + 1                  # unlisted dtype: 1 cycle


def test_route_element_bytes_counts_each_element_at_that_size(target):
    acc = OperandShape((64, 64), 4, "f32")
    from_l0c = target.cycles("tile.store", target.route("tile.store", ("L0C",), "GM"), [acc, acc])
    from_ub = target.cycles("tile.store", target.route("tile.store", ("UB",), "GM"), [acc, acc])
    assert from_l0c == 64 * 64 * 2 // 8 and from_ub == 64 * 64 * 4 // 8


def test_clock_converts_cycles_to_microseconds(target):
    assert target.frequency_hz == 2e9
    assert target.microseconds(3000) == pytest.approx(1.5)
    assert parse_target(TARGET.replace("frequency_hz = 2e9\n", ""), "f.toml").microseconds(10) is None
    assert load_target("ascend-a2").microseconds(1850) == pytest.approx(1.0)


@pytest.mark.parametrize(("edit", "message"), [
    (("frequency_hz = 2e9", "frequency_hz = 0"), "frequency_hz: must be positive"),
    (('["f32", 32, 0.5, 10]', '["f32", 32, 0.5]'), "units.V.formulas.tile.sub: a formula row is"),
    (('["f32", 32, 0.5, 10]', '["f32", "x", 0.5, 10]'), "cols must be a column count"),
    (('["f32", 32, 0.5, 10]', '["f32", 32, -0.5, 10]'), "units.V.formulas.tile.sub: must be non-negative"),
    (('"tile.add" = "tile.sub"', '"tile.add" = "tile.mul"'), "'tile.mul' has no rows of its own"),
    (("head = 6", "head = 6\nrate = 2"), "units.M.matmul.rate: unknown key"),
    (("element_bytes = 2", "element_bytes = 0"), "element_bytes: must be at least 1"),
])
def test_errors_in_the_new_keys_are_located(edit, message):
    with pytest.raises(TileschedError) as info:
        parse_target(TARGET.replace(*edit), "forms.toml")
    assert message in info.value.message
    assert str(info.value.loc).startswith("forms.toml:")


@settings(max_examples=200, deadline=None)
@given(columns=st.lists(st.integers(1, 1024), min_size=1, max_size=8, unique=True),
       wanted=st.integers(1, 2048), rows=st.integers(1, 256))
def test_nearest_column_rule_on_random_tables(columns, wanted, rows):
    """The row chosen for a column count not in the table is the nearest one, the larger on a
    tie; the cost grows with the rows (slopes are non-negative)."""
    formula = VectorFormula(tuple(("f32", c, c / 1000, c % 7) for c in columns))
    slope, bias = formula.lookup("f32", wanted)
    chosen = round(slope * 1000)
    assert chosen in columns
    assert all(abs(c - wanted) > abs(chosen - wanted)
               or (abs(c - wanted) == abs(chosen - wanted) and c <= chosen) for c in columns)
    if wanted in columns:
        assert chosen == wanted
    assert formula.cycles("f32", (rows, wanted)) <= formula.cycles("f32", (rows + 1, wanted))
    assert formula.lookup("f16", wanted) is None
