"""Modulo reservation table (MRT) with multi-cycle footprints and probe-before-commit.

The table has one row per cycle modulo II and one column per capacity (a limited resource or a
pool, see :class:`~tilesched.schedule.modulo.graph.CompiledGraph`). A node's footprint is a tuple of
``(offset, column)`` uses; placed at start ``t`` it takes one unit of ``column`` in row
``(t + offset) mod II`` per use, so a footprint longer than II wraps onto itself. Rau, "Iterative
Modulo Scheduling" (HP Labs HPL-94-115, 1994), §3; the source document's ``rrt_probe`` /
``rrt_commit``, generalised from one-bit rows to counted capacities.

Footprints are folded per II into runs of rows (:class:`Footprint`), and each column keeps the
bit set of its rows with a free unit. Probing is a few bit-set operations per run, and the start
rows where a footprint fits come from eroding the free rows by each run's length (O(log length)
bit-set operations): the cost follows the number of runs, not the cycles, so a tile op that
holds its unit for thousands of cycles probes as fast as a one-cycle op.

:meth:`commit` re-probes and refuses a footprint that does not fit, so a partially committed
footprint can never exist. Each cell also records its occupants, which the iterative scheduler
needs for eviction and the diagnostics need for "the conflicting table rows".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

Cells = tuple[tuple[int, int], ...]
"""A footprint as ``(offset, column)`` uses, one per cycle (the compiled graph's ``usage``)."""


class Footprint:
    """A footprint's cycles (``cells``), folded per II into *levels* of row runs.

    Placed at row ``s``, the footprint needs ``need[r]`` units of a column in row ``s + r`` (mod
    II). Level ``k`` of a column lists, as runs ``(first row, length)``, the rows ``r`` with
    ``need[r] >= k``; the footprint fits where every level-``k`` row has ``k`` free units. A
    footprint that does not wrap onto itself has one level per column, its runs of consecutive
    cycles. Hashed by identity: build one per node and reuse it.
    """

    __slots__ = ("cells", "runs", "_levels")

    def __init__(self, cells: Cells):
        self.cells = tuple(cells)
        self.runs = _cycle_runs(self.cells)
        self._levels: dict[int, tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]] = {}

    def __len__(self) -> int:
        return len(self.cells)

    def levels(self, ii: int) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]:
        """``(column, k, runs)`` per column and need level (see the class docstring). Cached
        per II; O(runs) to build when the footprint does not wrap onto itself, else
        O(cycles)."""
        known = self._levels.get(ii)
        if known is None:
            known = self._levels[ii] = _fold_runs(self.runs, ii) or _fold(self.cells, ii)
        return known


def _cycle_runs(cells: Cells) -> dict[int, list[tuple[int, int]]]:
    """``{column: [(first offset, length)]}``: the cycles as runs of consecutive offsets."""
    runs: dict[int, list[list[int]]] = {}
    for off, col in sorted(cells, key=lambda use: (use[1], use[0])):
        mine = runs.setdefault(col, [])
        if mine and mine[-1][0] + mine[-1][1] == off:
            mine[-1][1] += 1
        else:
            mine.append([off, 1])
    return {col: [(first, length) for first, length in mine] for col, mine in runs.items()}


def _fold_runs(runs: dict[int, list[tuple[int, int]]], ii: int):
    """One level per column when no two cycles share a row modulo ``ii``; else None."""
    levels = []
    for col in sorted(runs):
        rows, taken = [], 0
        for first, length in runs[col]:
            mask = rows_mask(first, first + length - 1, ii)
            if length > ii or taken & mask:
                return None
            taken |= mask
            row = first % ii
            if row + length <= ii:
                rows.append((row, length))
            else:
                rows += [(row, ii - row), (0, row + length - ii)]
        levels.append((col, 1, tuple(rows)))
    return tuple(levels)


def _fold(cells: Cells, ii: int):
    need: dict[int, Counter] = {}
    for off, col in cells:
        need.setdefault(col, Counter())[off % ii] += 1
    levels = []
    for col in sorted(need):
        rows = need[col]
        for k in range(1, max(rows.values()) + 1):
            levels.append((col, k, _row_runs(sorted(r for r, n in rows.items() if n >= k))))
    return tuple(levels)


def _row_runs(rows: list[int]) -> tuple[tuple[int, int], ...]:
    """Sorted rows as ``(first, length)`` runs of consecutive rows."""
    runs: list[list[int]] = []
    for r in rows:
        if runs and runs[-1][0] + runs[-1][1] == r:
            runs[-1][1] += 1
        else:
            runs.append([r, 1])
    return tuple((first, length) for first, length in runs)


def rows_mask(lo: int, hi: int, ii: int) -> int:
    """Bit set of the rows ``t mod ii`` for ``t`` in ``[lo, hi]``."""
    width = hi - lo + 1
    full = (1 << ii) - 1
    if width >= ii:
        return full
    if width <= 0:
        return 0
    mask = ((1 << width) - 1) << (lo % ii)
    return (mask | (mask >> ii)) & full


def rotate_down(bits: int, k: int, ii: int) -> int:
    """Rotate a row set so that bit ``r`` of the result is bit ``(r + k) mod ii`` of ``bits``."""
    k %= ii
    if not k:
        return bits
    return ((bits >> k) | (bits << (ii - k))) & ((1 << ii) - 1)


def erode(bits: int, length: int, ii: int) -> int:
    """Rows ``r`` such that rows ``r .. r + length - 1`` (mod ``ii``) are all in ``bits``.
    O(log length) bit-set operations (binary doubling)."""
    result, shift, span, window = (1 << ii) - 1, 0, 1, bits
    while length:
        if length & 1:
            result &= rotate_down(window, shift, ii)
            shift += span
        length >>= 1
        if length:
            window &= rotate_down(window, span, ii)
            span *= 2
    return result


def dilate(bits: int, length: int, ii: int) -> int:
    """Rows ``r + j`` (mod ``ii``) for ``r`` in ``bits`` and ``0 <= j < length``."""
    result, shift, span, window = 0, 0, 1, bits
    while length:
        if length & 1:
            result |= rotate_down(window, -shift, ii)
            shift += span
        length >>= 1
        if length:
            window |= rotate_down(window, -span, ii)
            span *= 2
    return result


@dataclass(frozen=True)
class Conflict:
    """Column ``column`` of row ``row`` is full: ``occupants`` hold all ``capacity`` units."""

    row: int
    column: int
    capacity: int
    occupants: tuple[int, ...]


def _footprint(footprint: Footprint | Cells) -> Footprint:
    return footprint if isinstance(footprint, Footprint) else Footprint(footprint)


class ModuloReservationTable:
    """Counts per (row, column) with occupant lists; see the module docstring.

    Methods taking a footprint accept a :class:`Footprint` (fast) or plain cells.
    """

    def __init__(self, ii: int, capacity: list[int]):
        if ii < 1:
            raise ValueError(f"initiation interval must be >= 1, got {ii}")
        self.ii = ii
        self.capacity = list(capacity)
        self._cols = len(capacity)
        self._count = [0] * (ii * self._cols)
        self._occupants: dict[int, list[int]] = {}
        full = (1 << ii) - 1
        self._free = [full if cap > 0 else 0 for cap in self.capacity]
        self.stamp = 0  # bumped by every change of the table

    def _room(self, col: int, k: int) -> int:
        """Bit set of the rows where ``col`` has at least ``k`` free units."""
        if k == 1:
            return self._free[col]
        cap, cols, count = self.capacity[col], self._cols, self._count
        if k > cap:
            return 0
        return sum(1 << r for r in range(self.ii) if count[r * cols + col] + k <= cap)

    def probe(self, footprint: Footprint | Cells, start: int) -> bool:
        """Whether ``footprint`` fits at ``start``. O(runs) bit-set operations."""
        ii = self.ii
        for col, k, runs in _footprint(footprint).levels(ii):
            room = self._room(col, k)
            for first, length in runs:
                window = rows_mask(start + first, start + first + length - 1, ii)
                if room & window != window:
                    return False
        return True

    def start_rows(self, footprint: Footprint | Cells) -> int:
        """Bit set of the start rows where ``footprint`` fits. O(runs * log length) bit-set
        operations."""
        ii = self.ii
        fp = footprint if type(footprint) is Footprint else _footprint(footprint)
        levels = fp._levels.get(ii) or fp.levels(ii)
        rows = -1
        for col, k, runs in levels:
            room = self._free[col] if k == 1 else self._room(col, k)
            for first, length in runs:
                if length > 1:
                    room_run = erode(room, length, ii)
                else:
                    room_run = room
                rows &= rotate_down(room_run, first, ii) if first % ii else room_run
                if not rows:
                    return 0
        return rows & ((1 << ii) - 1)

    def conflicts(self, footprint: Footprint | Cells, start: int,
                  limit: int | None = None) -> list[Conflict]:
        """The cells ``footprint`` would overflow at ``start``, in row order (the first
        ``limit`` of them)."""
        ii, cells = self.ii, set()
        for col, k, runs in _footprint(footprint).levels(ii):
            room = self._room(col, k)
            for first, length in runs:
                full = rows_mask(start + first, start + first + length - 1, ii) & ~room
                cells.update((row, col) for row in _bits(full))
        return [self._conflict(row, col) for row, col in sorted(cells)[:limit]]

    def _conflict(self, row: int, col: int) -> Conflict:
        occupants = tuple(self._occupants.get(row * self._cols + col, ()))
        return Conflict(row, col, self.capacity[col], occupants)

    def full_rows_met(self, footprint: Footprint | Cells, starts: int) -> dict[int, int]:
        """``{column: rows}``: the rows without room the footprint meets from any start row in
        the bit set ``starts`` (for diagnostics). O(runs * log length) bit-set operations."""
        ii, met = self.ii, {}
        for col, k, runs in _footprint(footprint).levels(ii):
            room = self._room(col, k)
            for first, length in runs:
                full = dilate(rotate_down(starts, -first, ii), length, ii) & ~room
                if full:
                    met[col] = met.get(col, 0) | full
        return met

    def refusals(self, footprint: Footprint | Cells, starts: int) -> dict[int, int]:
        """``{column: count}``: of the start rows in the bit set ``starts``, how many that
        column has no room for (for diagnostics)."""
        ii = self.ii
        fits: dict[int, int] = {}
        for col, k, runs in _footprint(footprint).levels(ii):
            room = self._room(col, k)
            for first, length in runs:
                ok = rotate_down(erode(room, length, ii), first, ii)
                fits[col] = fits.get(col, (1 << ii) - 1) & ok
        return {col: (starts & ~ok).bit_count() for col, ok in fits.items() if starts & ~ok}

    def commit(self, node: int, footprint: Footprint | Cells, start: int) -> None:
        """Reserve ``footprint`` at ``start`` for ``node``; probes first, raises if it does not fit."""
        fp = _footprint(footprint)
        if not self.probe(fp, start):
            raise ValueError(f"footprint of node {node} does not fit at cycle {start}")
        ii, cols, count, cap = self.ii, self._cols, self._count, self.capacity
        full: dict[int, list[int]] = {}
        for off, col in fp.cells:
            row = (start + off) % ii
            cell = row * cols + col
            count[cell] += 1
            self._occupants.setdefault(cell, []).append(node)
            if count[cell] >= cap[col]:
                full.setdefault(col, []).append(row)
        for col, rows in full.items():
            self._free[col] &= ~_mask_of(rows, ii)
        self.stamp += 1

    def release(self, node: int, footprint: Footprint | Cells, start: int) -> None:
        """Undo :meth:`commit` of the same node, footprint and start."""
        fp = _footprint(footprint)
        ii, cols, count, cap = self.ii, self._cols, self._count, self.capacity
        freed: dict[int, list[int]] = {}
        for off, col in fp.cells:
            row = (start + off) % ii
            cell = row * cols + col
            count[cell] -= 1
            self._occupants[cell].remove(node)
            if count[cell] < cap[col]:
                freed.setdefault(col, []).append(row)
        for col, rows in freed.items():
            self._free[col] |= _mask_of(rows, ii)
        self.stamp += 1

    def used(self, row: int, column: int) -> int:
        """Units of ``column`` taken in ``row``."""
        return self._count[row * self._cols + column]

    def occupants(self, row: int, column: int) -> tuple[int, ...]:
        """Nodes holding ``column`` in ``row`` (a node appears once per unit)."""
        return tuple(self._occupants.get(row * self._cols + column, ()))

    def free_rows(self, column: int) -> int:
        """Bit set of the rows where ``column`` has a free unit (bit ``r`` for row ``r``)."""
        return self._free[column]

    def free(self, row: int, column: int) -> int:
        """Units of ``column`` still free in ``row``."""
        return self.capacity[column] - self._count[row * self._cols + column]

    def pressure(self, footprint: Footprint | Cells, start: int) -> float:
        """Sum over the footprint's cells of the filled fraction after placing it (a cost)."""
        ii, cols, total = self.ii, self._cols, 0.0
        cells = _footprint(footprint).cells
        need = Counter(((start + off) % ii) * cols + col for off, col in cells)
        for cell, n in need.items():
            cap = self.capacity[cell % cols]
            total += (self._count[cell] + n) / cap if cap else float("inf")
        return total

    def snapshot(self) -> tuple:
        """A copy of the table state for :meth:`restore`. O(II * columns)."""
        occupants = {cell: list(o) for cell, o in self._occupants.items()}
        return list(self._count), occupants, list(self._free)

    def restore(self, state: tuple) -> None:
        """Return to a :meth:`snapshot`."""
        self._count = list(state[0])
        self._occupants = {cell: list(o) for cell, o in state[1].items()}
        self._free = list(state[2])
        self.stamp += 1


def _mask_of(rows: list[int], ii: int) -> int:
    """The bit set of ``rows`` (each below ``ii``). O(II / 8 + len(rows))."""
    if len(rows) < 8:
        return sum(1 << r for r in set(rows))
    flags = bytearray((ii + 7) // 8)
    for r in rows:
        flags[r >> 3] |= 1 << (r & 7)
    return int.from_bytes(flags, "little")


def _bits(bits: int):
    """The set bits of ``bits``, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def set_bits(bits: int) -> list[int]:
    """The set bits of ``bits``, lowest first."""
    return list(_bits(bits))
