"""Placement state for one candidate II: the table, provisional start times, dependence windows.

At a fixed II only the rows of capacity-using nodes matter, and dependences bound them only
inside a recurrence group (see :mod:`.scheduler`): a member's *window* is the interval of start
times its placed group-mates allow (``t(j) - t(i) >= D[i][j]``). A *seat* is a start time in
the window where the node's footprint fits the table. The placement arms (:mod:`.arms`,
:mod:`.cost_arm`) and Rau's IMS (:mod:`.ims`) all work through this state.

Seats are enumerated from the table's bit set of fitting start rows, so finding the first legal
seat costs a few bit-set operations however long the footprints and the II are.
"""

from __future__ import annotations

from collections.abc import Iterator

from tilesched.schedule.modulo.failure import PlacementFailure, failure_at
from tilesched.schedule.modulo.graph import CompiledGraph
from tilesched.schedule.modulo.paths import RecurrenceGroup, group_distances, longest_paths
from tilesched.schedule.modulo.reservation_table import (
    Footprint,
    ModuloReservationTable,
    rotate_down,
    rows_mask,
)


class Placer:
    """Table, start times and windows of one candidate II (see the module docstring)."""

    def __init__(self, cg: CompiledGraph, groups: list[RecurrenceGroup], ii: int,
                 budget_ratio: float, footprints: list[Footprint] | None = None,
                 dmat: list[list[list[int]]] | None = None):
        self.cg, self.ii, self.groups = cg, ii, groups
        self.asap, cycle = longest_paths(cg.succ, ii)
        if cycle is not None:
            raise ValueError(f"II {ii} is below RecMII")
        self.height, _ = longest_paths(cg.pred, ii)
        self.dmat = dmat if dmat is not None else [group_distances(g, ii) for g in groups]
        self.group_of: dict[int, int] = {}
        self.pos: dict[int, int] = {}
        for gi, group in enumerate(groups):
            for i, v in enumerate(group.members):
                self.group_of[v] = gi
                self.pos[v] = i
        self.budget_ratio = budget_ratio
        self.footprints = footprints or [Footprint(u) for u in cg.usage]
        self.table = ModuloReservationTable(ii, cg.column_capacity)
        kinds: dict[tuple, int] = {}
        self._kind = [kinds.setdefault(u, len(kinds)) for u in cg.usage]  # equal footprints
        self._rows: dict[int, int] = {}
        self._stamp = -1
        self.time: dict[int, int] = {}
        self.arm: dict[int, str] = {}
        self.tape: dict[int, int] = {}
        self.failure: PlacementFailure | None = None

    # ---- windows and seats -------------------------------------------------------------

    def window(self, v: int) -> tuple[int | None, int | None]:
        """Bounds on ``t(v)`` from the placed members of its group (``None``: unbounded). O(k)."""
        gi = self.group_of[v]
        if not self.groups[gi].bounded:
            return None, None
        dmat, j, pos = self.dmat[gi], self.pos[v], self.pos
        lo = hi = None
        for u in self.groups[gi].members:
            tu = self.time.get(u)
            if tu is None:
                continue
            i = pos[u]
            a, b = tu + dmat[i][j], tu - dmat[j][i]
            lo = a if lo is None or a > lo else lo
            hi = b if hi is None or b < hi else hi
        return lo, hi

    def segments(self, v: int, lo: int | None, hi: int | None) -> list[tuple[int, int, bool]]:
        """The candidate starts as ``(first, last, upwards)`` runs, each row at most once: from
        the ASAP time (clipped into the window) upwards, then downwards below it."""
        ii, target = self.ii, self.asap[v]
        if lo is None:
            return [(target, target + ii - 1, True)]
        if hi < lo:
            return []
        if hi - lo + 1 >= ii:
            start = min(max(lo, target), hi - ii + 1)
            return [(start, start + ii - 1, True)]
        start = min(max(lo, target), hi)
        return [(start, hi, True), (lo, start - 1, False)]

    def candidates(self, v: int, lo: int | None, hi: int | None) -> list[int]:
        """Start times to try, in order (:meth:`segments` spelled out)."""
        out: list[int] = []
        for first, last, up in self.segments(v, lo, hi):
            out.extend(range(first, last + 1) if up else range(last, first - 1, -1))
        return out

    def candidate_rows(self, v: int, lo: int | None, hi: int | None) -> int:
        """Bit set of the rows of :meth:`candidates`."""
        rows = 0
        for first, last, _ in self.segments(v, lo, hi):
            rows |= rows_mask(first, last, self.ii)
        return rows

    def legal_seats(self, v: int, lo: int | None, hi: int | None) -> Iterator[int]:
        """The candidates where ``v``'s footprint fits, in candidate order (lazily; the table
        must not change while the seats are read)."""
        ii = self.ii
        rows = self.start_rows(v)
        for first, last, up in self.segments(v, lo, hi):
            if last < first:
                continue
            bits = rotate_down(rows, first, ii) & ((1 << (last - first + 1)) - 1)
            while bits:
                bit = (bits & -bits).bit_length() - 1 if up else bits.bit_length() - 1
                yield first + bit
                bits ^= 1 << bit

    def start_rows(self, v: int) -> int:
        """The table's start rows for ``v``, shared by nodes with equal footprints until the
        table changes."""
        if self._stamp != self.table.stamp:
            self._rows.clear()
            self._stamp = self.table.stamp
        kind = self._kind[v]
        rows = self._rows.get(kind)
        if rows is None:
            rows = self._rows[kind] = self.table.start_rows(self.footprints[v])
        return rows

    def first_seat(self, v: int, lo: int | None, hi: int | None) -> int | None:
        """The first of :meth:`legal_seats`, or None."""
        return next(self.legal_seats(v, lo, hi), None)

    def first_fit_from(self, v: int, first: int) -> int | None:
        """The least start ``>= first`` and ``< first + II`` where ``v`` fits, or None."""
        return self.first_seat(v, first, first + self.ii - 1)

    def legal_count(self, v: int, lo: int | None, hi: int | None) -> int:
        """Legal seats of ``v`` in its window (bit-parallel)."""
        if lo is not None and hi < lo:
            return 0
        rows = self.start_rows(v)
        if lo is None:
            return rows.bit_count()
        return (rows & rows_mask(lo, hi, self.ii)).bit_count()

    def seat(self, v: int, t: int) -> None:
        """Commit ``v`` at ``t`` (the table re-probes)."""
        self.table.commit(v, self.footprints[v], t)
        self.time[v] = t

    def unseat(self, v: int) -> None:
        """Remove ``v`` from the table."""
        self.table.release(v, self.footprints[v], self.time.pop(v))

    def seat_earliest(self, v: int, stage: str) -> bool:
        """Seat ``v`` at its first legal candidate; record a failure if there is none."""
        lo, hi = self.window(v)
        t = self.first_seat(v, lo, hi)
        if t is None:
            self.failure = self.describe_failure(v, lo, hi, stage)
            return False
        self.seat(v, t)
        return True

    def clear_group(self, gi: int) -> None:
        """Unseat every member of group ``gi``."""
        for v in self.groups[gi].members:
            if v in self.time:
                self.unseat(v)

    def reset(self) -> None:
        """Empty table and times."""
        self.table = ModuloReservationTable(self.ii, self.cg.column_capacity)
        self._stamp = -1
        self.time.clear()
        self.arm.clear()
        self.tape.clear()

    def priority(self, v: int) -> tuple[int, int, int]:
        """Predecessor priority: earliest ASAP time first, then the tallest."""
        return (self.asap[v], -self.height[v], v)

    def describe_failure(self, v: int, lo, hi, stage: str, note: str = "") -> PlacementFailure:
        """The full rows ``v`` met over its candidates, and the column refusing most."""
        return failure_at(self.cg, self.table, v, self.footprints[v], (lo, hi),
                          self.candidate_rows(v, lo, hi), stage, note)
