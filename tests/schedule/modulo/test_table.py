"""The modulo reservation table: capacities, multi-cycle wrap-around, probe before commit."""

from __future__ import annotations

import pytest

from tilesched.schedule.modulo.reservation_table import ModuloReservationTable


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
