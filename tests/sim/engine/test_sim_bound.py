"""The lower bound: busiest unit and read-after-write critical path."""

from __future__ import annotations

from tilesched.sim.code.program import compile_trace
from tilesched.sim.engine.critical_path import busiest_unit, critical_path, lower_bound
from tilesched.sim.synthetic import ascend_machine
from tilesched.sim.trace import TraceBuilder


def _path(build) -> int:
    b = TraceBuilder(ascend_machine())
    build(b, b.buffer("x", (4, 8), "float32", "UB"), b.buffer("y", (4, 8), "float32", "UB"))
    return critical_path(compile_trace(b.build()).code[0])


def _rows(b, buf, lo, hi):
    return b.tile(buf, (lo, 0), (hi - lo, 8))


def test_chain_sums_durations():
    def build(b, x, y):
        b.op("tile.fill", "V", 10, [b.whole(x)], {"value": 1.0})
        b.op("tile.exp", "V", 5, [b.whole(x), b.whole(y)])
        b.op("tile.exp", "V", 7, [b.whole(y), b.whole(x)])
    assert _path(build) == 22


def test_overwritten_data_is_not_a_dependence():
    def build(b, x, y):
        b.op("tile.fill", "V", 100, [b.whole(x)], {"value": 1.0})
        b.op("tile.fill", "V", 1, [b.whole(x)], {"value": 2.0})
        b.op("tile.exp", "V", 5, [b.whole(x), b.whole(y)])
    assert _path(build) == 100  # the exp follows the short fill only: 1 + 5 < 100


def test_partial_overwrites():
    def only_new(b, x, y):
        b.op("tile.fill", "V", 100, [b.whole(x)], {"value": 1.0})
        b.op("tile.fill", "V", 1, [_rows(b, x, 0, 2)], {"value": 2.0})
        b.op("tile.exp", "V", 500, [_rows(b, x, 0, 2), _rows(b, y, 0, 2)])

    def both(b, x, y):
        b.op("tile.fill", "V", 100, [b.whole(x)], {"value": 1.0})
        b.op("tile.fill", "V", 1, [_rows(b, x, 0, 2)], {"value": 2.0})
        b.op("tile.exp", "V", 500, [b.whole(x), b.whole(y)])
    assert _path(only_new) == 501
    assert _path(both) == 600


def test_disjoint_slots_depend_on_their_own_writer():
    def build(b, x, y):
        b.op("tile.fill", "V", 100, [_rows(b, x, 0, 2)], {"value": 1.0})
        b.op("tile.fill", "V", 3, [_rows(b, x, 2, 4)], {"value": 2.0})
        b.op("tile.exp", "V", 5, [_rows(b, x, 2, 4), _rows(b, y, 2, 4)])
    assert _path(build) == 100


def test_bound_is_the_larger_term():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (4, 8), "float32", "UB")
    y = b.buffer("y", (4, 8), "float32", "UB")
    for _ in range(3):
        b.op("tile.fill", "V", 10, [b.whole(x)], {"value": 1.0})
        b.op("tile.copy", "MTE1", 4, [b.whole(x), b.whole(y)])
    program = compile_trace(b.build())
    assert busiest_unit(program) == ("V", 30)
    assert lower_bound(program) == (30, "unit V busy 30 cycles")
