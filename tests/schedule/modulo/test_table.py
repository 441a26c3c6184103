"""The modulo reservation table: capacities, multi-cycle wrap-around, probe before commit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.schedule.modulo.reservation_table import Footprint, ModuloReservationTable


def test_capacity_counts_per_row():
    table = ModuloReservationTable(3, [2])
    one = ((0, 0),)
    table.commit(1, one, 0)
    table.commit(2, one, 3)  # same row as 0
    assert not table.probe(one, 6)
    assert table.probe(one, 1)
    (conflict,) = table.conflicts(one, 0)
    assert (conflict.row, conflict.column, conflict.occupants) == (0, 0, (1, 2))


def test_multi_cycle_footprint_wraps_onto_itself():
    table = ModuloReservationTable(2, [1])
    three = ((0, 0), (1, 0), (2, 0))  # 3 cycles at II 2: row s twice
    assert not table.probe(three, 0)
    table2 = ModuloReservationTable(2, [2])
    assert table2.probe(three, 0)
    table2.commit(7, three, 1)
    assert table2.used(1, 0) == 2 and table2.used(0, 0) == 1
    assert table2.free_rows(0) == 0b01


def test_commit_refuses_a_footprint_that_does_not_fit():
    table = ModuloReservationTable(4, [1, 1])
    table.commit(1, ((1, 1),), 0)
    before = table.snapshot()
    with pytest.raises(ValueError):
        table.commit(2, ((0, 0), (1, 1)), 0)  # column 0 fits, column 1 does not
    assert table.snapshot() == before  # nothing was partially committed


def test_release_and_restore():
    table = ModuloReservationTable(4, [1])
    state = table.snapshot()
    table.commit(5, ((0, 0), (1, 0)), 3)
    assert table.occupants(0, 0) == (5,) and table.occupants(3, 0) == (5,)
    table.release(5, ((0, 0), (1, 0)), 3)
    assert table.probe(((0, 0),), 3)
    table.commit(6, ((0, 0),), 1)
    table.restore(state)
    assert table.free_rows(0) == 0b1111


def test_pressure_prefers_empty_rows():
    table = ModuloReservationTable(2, [2])
    table.commit(1, ((0, 0),), 0)
    assert table.pressure(((0, 0),), 1) < table.pressure(((0, 0),), 0)


# ----------------------------------------------------------- bit-set operations vs. counting

@st.composite
def footprints(draw, columns: int):
    """Runs of cycles on random columns, possibly longer than II or overlapping."""
    cells = []
    for _ in range(draw(st.integers(1, 3))):
        off, col, length = draw(st.integers(0, 12)), draw(st.integers(0, columns - 1)), \
            draw(st.integers(1, 9))
        cells += [(off + k, col) for k in range(length)]
    return tuple(sorted(cells))


def _fits(counts, capacity, ii, cells, start) -> bool:
    need: dict = {}
    for off, col in cells:
        key = ((start + off) % ii, col)
        need[key] = need.get(key, 0) + 1
    return all(counts.get(key, 0) + n <= capacity[key[1]] for key, n in need.items())


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data())
def test_bit_set_probes_agree_with_counting(ii, capacity, data):
    table = ModuloReservationTable(ii, capacity)
    counts: dict = {}
    for node in range(data.draw(st.integers(0, 5))):
        cells = data.draw(footprints(len(capacity)))
        start = data.draw(st.integers(0, 30))
        if _fits(counts, capacity, ii, cells, start):
            table.commit(node, Footprint(cells), start)
            for off, col in cells:
                key = ((start + off) % ii, col)
                counts[key] = counts.get(key, 0) + 1
    probe = Footprint(data.draw(footprints(len(capacity))))
    expected = [_fits(counts, capacity, ii, probe.cells, s) for s in range(ii)]
    assert [table.probe(probe, s) for s in range(ii)] == expected
    rows = table.start_rows(probe)
    assert [bool(rows >> s & 1) for s in range(ii)] == expected
    for s in range(ii):
        overflow = {(c.row, c.column) for c in table.conflicts(probe, s)}
        assert bool(overflow) != expected[s]
    refused = table.refusals(probe, (1 << ii) - 1)
    assert sum(1 for ok in expected if not ok) <= sum(refused.values())
    assert all(refused.values()) and (not refused) == all(expected)
