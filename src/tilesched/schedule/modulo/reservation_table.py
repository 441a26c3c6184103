"""Modulo reservation table (MRT) with multi-cycle footprints and probe-before-commit.

The table has one row per cycle modulo II and one column per capacity (a limited resource or a
pool, see :class:`~tilesched.schedule.modulo.graph.CompiledGraph`). A node's footprint is a tuple of
``(offset, column)`` uses; placed at start ``t`` it takes one unit of ``column`` in row
``(t + offset) mod II`` per use, so a footprint longer than II wraps onto itself. Rau, "Iterative
Modulo Scheduling" (HP Labs HPL-94-115, 1994), §3; the source document's ``rrt_probe`` /
``rrt_commit``, generalised from one-bit rows to counted capacities.

:meth:`commit` re-probes and refuses a footprint that does not fit, so a partially committed
footprint can never exist. Each cell also records its occupants, which the iterative scheduler
needs for eviction and the diagnostics need for "the conflicting table rows".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

Footprint = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Conflict:
    """Column ``column`` of row ``row`` is full: ``occupants`` hold all ``capacity`` units."""

    row: int
    column: int
    capacity: int
    occupants: tuple[int, ...]


class ModuloReservationTable:
    """Counts per (row, column) with occupant lists; see the module docstring."""

    def __init__(self, ii: int, capacity: list[int]):
        if ii < 1:
            raise ValueError(f"initiation interval must be >= 1, got {ii}")
        self.ii = ii
        self.capacity = list(capacity)
        self._cols = len(capacity)
        self._count = [0] * (ii * self._cols)
        self._occupants: list[list[int]] = [[] for _ in range(ii * self._cols)]
        full = (1 << ii) - 1
        self._free = [full if cap > 0 else 0 for cap in self.capacity]
        self._distinct: dict[Footprint, bool] = {}

    def _cells(self, footprint: Footprint, start: int) -> Counter:
        """Units the footprint needs per flat cell index when placed at ``start``."""
        ii, cols = self.ii, self._cols
        return Counter(((start + off) % ii) * cols + col for off, col in footprint)

    def distinct_cells(self, footprint: Footprint) -> bool:
        """Whether the footprint's uses fall in pairwise different cells (no wrap onto itself).
        Cached per footprint."""
        known = self._distinct.get(footprint)
        if known is None:
            cells = {(off % self.ii, col) for off, col in footprint}
            known = self._distinct[footprint] = len(cells) == len(footprint)
        return known

    def probe(self, footprint: Footprint, start: int) -> bool:
        """Whether ``footprint`` fits at ``start``. O(len(footprint))."""
        ii, cols, count, cap = self.ii, self._cols, self._count, self.capacity
        if len(footprint) == 1 or self.distinct_cells(footprint):
            for off, col in footprint:
                if count[((start + off) % ii) * cols + col] >= cap[col]:
                    return False
            return True
        for cell, need in self._cells(footprint, start).items():
            if count[cell] + need > cap[cell % cols]:
                return False
        return True

    def start_rows(self, footprint: Footprint) -> int | None:
        """Bit set of the start rows where ``footprint`` fits, or ``None`` when it uses some
        cell twice (then :meth:`probe` each start). O(len(footprint)) big-integer operations."""
        if not self.distinct_cells(footprint):
            return None
        ii = self.ii
        full = (1 << ii) - 1
        rows = full
        for off, col in footprint:
            free, k = self._free[col], off % ii
            rows &= ((free >> k) | (free << (ii - k))) & full
            if not rows:
                break
        return rows

    def conflicts(self, footprint: Footprint, start: int) -> list[Conflict]:
        """The full cells ``footprint`` would overflow at ``start``, in row order."""
        found = []
        for cell, need in sorted(self._cells(footprint, start).items()):
            col = cell % self._cols
            if self._count[cell] + need > self.capacity[col]:
                occ = tuple(self._occupants[cell])
                found.append(Conflict(cell // self._cols, col, self.capacity[col], occ))
        return found

    def commit(self, node: int, footprint: Footprint, start: int) -> None:
        """Reserve ``footprint`` at ``start`` for ``node``; probes first, raises if it does not fit."""
        if not self.probe(footprint, start):
            raise ValueError(f"footprint of node {node} does not fit at cycle {start}")
        ii, cols = self.ii, self._cols
        for off, col in footprint:
            row = (start + off) % ii
            cell = row * cols + col
            self._count[cell] += 1
            self._occupants[cell].append(node)
            if self._count[cell] >= self.capacity[col]:
                self._free[col] &= ~(1 << row)

    def release(self, node: int, footprint: Footprint, start: int) -> None:
        """Undo :meth:`commit` of the same node, footprint and start."""
        ii, cols = self.ii, self._cols
        for off, col in footprint:
            row = (start + off) % ii
            cell = row * cols + col
            self._count[cell] -= 1
            self._occupants[cell].remove(node)
            if self._count[cell] < self.capacity[col]:
                self._free[col] |= 1 << row

    def used(self, row: int, column: int) -> int:
        """Units of ``column`` taken in ``row``."""
        return self._count[row * self._cols + column]

    def occupants(self, row: int, column: int) -> tuple[int, ...]:
        """Nodes holding ``column`` in ``row`` (a node appears once per unit)."""
        return tuple(self._occupants[row * self._cols + column])

    def free_rows(self, column: int) -> int:
        """Bit set of the rows where ``column`` has a free unit (bit ``r`` for row ``r``)."""
        return self._free[column]

    def free(self, row: int, column: int) -> int:
        """Units of ``column`` still free in ``row``."""
        return self.capacity[column] - self._count[row * self._cols + column]

    def pressure(self, footprint: Footprint, start: int) -> float:
        """Sum over the footprint's cells of the filled fraction after placing it (a cost)."""
        total = 0.0
        for cell, need in self._cells(footprint, start).items():
            cap = self.capacity[cell % self._cols]
            total += (self._count[cell] + need) / cap if cap else float("inf")
        return total

    def snapshot(self) -> tuple:
        """A copy of the table state for :meth:`restore`. O(II * columns)."""
        return list(self._count), [list(o) for o in self._occupants], list(self._free)

    def restore(self, state: tuple) -> None:
        """Return to a :meth:`snapshot`."""
        self._count = list(state[0])
        self._occupants = [list(o) for o in state[1]]
        self._free = list(state[2])
