"""The machine's lower bound for a program (DESIGN.md §5 ``bound``), computed as it streams.

``bound = max(busiest unit, critical path)`` where

- *busiest unit* is the largest total op time of one non-pipelined unit instance (an inline unit
  shared by several issuer groups sums all groups' ops): no schedule finishes before that unit has
  done its work. Pipelined units overlap their own ops, so their sum is not a bound; they count
  through the critical path only.
- *critical path* is the longest chain of read-after-write dependences in program order, weighted
  by op durations: an op reading a region cannot finish before the ops that last wrote it in program
  order, plus its own duration. Chains are followed within one issuer group's program (cross-group
  chains are ignored, which keeps the value a valid lower bound). A write removes earlier writes it
  covers; a reader skips an older writer whose overlap with the read is covered by a newer writer.
  (Coverage by the union of several newer writers is not detected, so in such patterns the value
  can exceed the tightest bound; tile programs rarely write partially overlapping windows.)

Two implementations give identical results: :class:`BoundTracker` here (the reference, and the
one steady-state mode inspects) and the compiled ``native/bound.pyx`` ``BoundTracker``;
:func:`new_bound_tracker` picks one.

Cost. Each buffer keeps its live written regions (:class:`WrittenRegions`); while they are few a
read or write compares against all of them, and past :data:`~tilesched.sim.isa.INDEX_AT` they are indexed by a grid
of cells, so a kernel touching thousands of distinct tiles of one buffer stays near-linear.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from tilesched.sim import isa, native
from tilesched.sim.code.program import Program
from tilesched.sim.isa import ENQ, INLINE, TILE
from tilesched.sim.trace import region_intersection


def new_bound_tracker(p: Program, paths: bool = True, pure: bool = False):
    """A bound tracker for ``p``: the compiled one when it is built and neither ``pure`` (the
    caller reads the Python tracker's internals, as steady-state mode does) nor the
    ``TILESCHED_PURE_PYTHON`` environment variable asks for this module's :class:`BoundTracker`.
    Both have ``feed(issuer, chunk)``, ``bound()``, ``busiest()`` and ``work``."""
    compiled = None if pure else native.use(native.bound)
    if compiled is not None:
        return compiled.BoundTracker(p, paths)
    return BoundTracker(p, paths)


def lower_bound(p: Program) -> tuple[int, str]:
    """``(bound, reason)`` of a fully compiled program (see :class:`BoundTracker`)."""
    tracker = new_bound_tracker(p)
    for issuer, code in enumerate(p.code):
        tracker.feed(issuer, code)
    return tracker.bound()


def busiest_unit(p: Program) -> tuple[str, int]:
    """The non-pipelined unit instance (or shared inline unit) with the most op time."""
    tracker = new_bound_tracker(p, paths=False)
    for issuer, code in enumerate(p.code):
        tracker.feed(issuer, code)
    return tracker.busiest()


def critical_path(code: list[tuple]) -> int:
    """Longest RAW chain (sum of durations) through one issuer's tile ops in program order."""
    path = CriticalPath()
    path.feed(code)
    return path.longest


class BoundTracker:
    """Unit work and per-issuer critical paths, fed chunk by chunk in program order.

    Compiled twin: ``native/bound.pyx`` ``BoundTracker`` (``work`` is its ``work()``)."""

    def __init__(self, p: Program, paths: bool = True):
        self.p = p
        self.work: dict[str, int] = {}
        self.names = [a.name for a in p.agents]
        self.pipelined = {a.index for a in p.agents if a.pipelined}
        self.paths = [CriticalPath() for _ in range(p.issuer_count)] if paths else None

    def feed(self, issuer: int, code: list[tuple]) -> None:
        """Account for one chunk of an issuer's instructions.

        Compiled twin: ``native/bound.pyx`` ``BoundTracker.feed``."""
        work, names, inline = self.work, self.names, self.p.inline_units
        for ins in code:
            op = ins[0]
            if op == ENQ:
                item = ins[2]
                if item[0] == TILE and ins[1] not in self.pipelined:
                    name = names[ins[1]]
                    work[name] = work.get(name, 0) + item[1]
            elif op == INLINE:
                name = inline[ins[1]]
                work[name] = work.get(name, 0) + ins[2][1]
        if self.paths is not None:
            self.paths[issuer].feed(code)

    def busiest(self) -> tuple[str, int]:
        """``(unit, total op time)`` of the busiest unit (``("-", 0)`` when none worked).

        Compiled twin: ``native/bound.pyx`` ``BoundTracker.busiest``."""
        if not self.work:
            return "-", 0
        name = max(self.work, key=self.work.get)
        return name, self.work[name]

    def bound(self) -> tuple[int, str]:
        """``(bound, reason)``: the larger of the busiest unit's work and the critical path.

        Compiled twin: ``native/bound.pyx`` ``BoundTracker.bound``."""
        unit_name, unit_work = self.busiest()
        path = max((c.longest for c in self.paths or ()), default=0)
        if unit_work >= path:
            return unit_work, f"unit {unit_name} busy {unit_work} cycles"
        return path, f"read-after-write chain of {path} cycles"


class CriticalPath:
    """The longest RAW chain through one issuer's tile ops, fed in program order.

    Compiled twin: ``native/bound.pyx`` ``_Path`` (``longest``: ``BoundTracker.longest_paths``)."""

    def __init__(self) -> None:
        self.writers: dict[int, WrittenRegions] = {}
        self.longest = 0

    def feed(self, code: list[tuple]) -> None:
        """Extend the chains by a chunk of instructions."""
        writers, longest = self.writers, self.longest
        for ins in code:
            if ins[0] != ENQ and ins[0] != INLINE:
                continue
            item = ins[2]
            if item[0] != TILE:
                continue
            start = 0
            for buf, region, write, _ in item[3]:
                if not write:
                    written = writers.get(buf)
                    if written is not None:
                        ready = written.finish.get(region) if written.disjoint else None
                        if ready is None:
                            ready = written.ready(region)
                        if ready > start:
                            start = ready
            finish = start + item[1]
            for buf, region, write, _ in item[3]:
                if write:
                    written = writers.get(buf)
                    if written is None:
                        written = writers[buf] = WrittenRegions()
                    entries = written.finish
                    if written.cells is None and written.disjoint and region in entries:
                        del entries[region]  # disjoint from the others: nothing else is covered
                        entries[region] = finish
                    else:
                        written.write(region, finish)
            if finish > longest:
                longest = finish
        self.longest = longest


class WrittenRegions:
    """The live writes of one buffer: region -> finish time, oldest first.

    ``disjoint`` stays true while the regions are pairwise disjoint (slots, tiles): a read of
    exactly one of them then depends on that write alone. Past :data:`INDEX_AT` regions, a grid
    of cells (sized by the first region indexed) finds the regions a query may overlap, and
    ``age`` orders them (before that, the dict's own order does).
    """

    __slots__ = ("finish", "disjoint", "age", "clock", "cells", "size", "big")

    def __init__(self) -> None:
        self.finish: dict[tuple, int] = {}
        self.disjoint = True
        self.age: dict[tuple, int] = {}
        self.clock = 0
        self.cells: dict[tuple, set] | None = None
        self.size: tuple[int, ...] = ()
        self.big: set = set()

    def ready(self, region) -> int:
        """Latest finish among the writes a read of ``region`` depends on."""
        if self.disjoint:
            ready = self.finish.get(region)
            if ready is not None:
                return ready
        return max((self.finish[r] for r in self.depends(region)), default=0)

    def depends(self, region) -> list:
        """The writes a read of ``region`` depends on: newest first, each overlapping write not
        covered (for this read) by a newer one, up to the first that contains the read."""
        if self.disjoint and region in self.finish:
            return [region]
        found: list = []
        newer: list = []
        for written in self._overlapping(region, newest_first=True):
            if _contains(written, region):
                found.append(written)
                return found
            common = region_intersection(written, region)
            if not any(_contains(n, common) for n in newer):
                found.append(written)
            newer.append(written)
        return found

    def regions(self) -> list:
        """The live written regions, oldest first."""
        if self.cells is None:
            return list(self.finish)
        return sorted(self.finish, key=self.age.__getitem__)

    def write(self, region, finish: int) -> None:
        """Make ``region`` the newest write, dropping older writes it covers."""
        entries = self.finish
        if region in entries and self.disjoint:
            self._remove(region)  # disjoint from every other entry: nothing else is covered
            self._add(region, finish)
            return
        if region in entries:
            self._remove(region)
        overlapping = self._overlapping(region)
        for other in overlapping:
            if _contains(region, other):
                self._remove(other)
        if self.disjoint:
            self.disjoint = not any(o in entries for o in overlapping)
        self._add(region, finish)

    def _add(self, region, finish: int) -> None:
        self.finish[region] = finish
        if self.cells is not None:
            self.clock += 1
            self.age[region] = self.clock
            self._index(region)
        elif len(self.finish) > isa.INDEX_AT:  # (read late: tests lower it)
            self.cells = {}
            self.size = tuple(max(1, hi - lo) for lo, hi in region)
            for known in self.finish:
                self.clock += 1
                self.age[known] = self.clock
                self._index(known)

    def _remove(self, region) -> None:
        del self.finish[region]
        if self.cells is not None:
            del self.age[region]
            keys = self._cell_keys(region)
            if keys is None:
                self.big.discard(region)
            else:
                for key in keys:
                    cell = self.cells[key]
                    cell.discard(region)
                    if not cell:
                        del self.cells[key]

    def _index(self, region) -> None:
        keys = self._cell_keys(region)
        if keys is None:
            self.big.add(region)
            return
        for key in keys:
            self.cells.setdefault(key, set()).add(region)

    def _cell_keys(self, region):
        """The grid cells a region covers, or ``None`` when they are too many."""
        spans = [range(lo // s, (hi - 1) // s + 1) for (lo, hi), s in zip(region, self.size,
                                                                          strict=True)]
        count = 1
        for span in spans:
            count *= len(span)
        if count > isa.MAX_CELLS:
            return None
        return product(*spans)

    def _overlapping(self, region, newest_first: bool = False) -> list:
        """The live regions overlapping ``region`` (newest first when asked)."""
        if self.cells is None:
            found = [r for r in self.finish if _overlap(r, region)]
            return found[::-1] if newest_first else found
        keys = self._cell_keys(region)
        if keys is None:
            found = [r for r in self.finish if _overlap(r, region)]
        else:
            near = set(self.big)
            for key in keys:
                cell = self.cells.get(key)
                if cell:
                    near.update(cell)
            found = [r for r in near if _overlap(r, region)]
        if newest_first:
            found.sort(key=self.age.__getitem__, reverse=True)
        return found


def _overlap(a, b) -> bool:
    """True when two regions share an element."""
    for (alo, ahi), (blo, bhi) in zip(a, b, strict=True):
        if alo >= bhi or blo >= ahi:
            return False
    return True


def _contains(outer, inner) -> bool:
    """True when ``inner`` lies inside ``outer``."""
    for (olo, ohi), (ilo, ihi) in zip(outer, inner, strict=True):
        if ilo < olo or ihi > ohi:
            return False
    return True


def advance_path(path: CriticalPath, period: list, move, periods: int,
                 keep_map: bool = False) -> PathJump | None:
    """What ``periods`` more repetitions of the instruction chunks ``period`` do to ``path``
    (``None`` when it cannot be computed exactly); ``.apply(path)`` makes it so.

    The path's state is the finish time of each live written region plus the longest chain, and
    one repetition maps it by a max-plus linear map ``x -> A (x)`` (every new finish is a max of
    old finishes plus durations). Replaying ``period`` once on max-plus *forms* of the old
    values gives ``A``; ``A`` to the power ``periods`` (by squaring) gives the state after the
    skipped repetitions exactly. ``move(buf, region, times)`` moves a region by ``times``
    repetitions; the replay must map the live regions onto themselves moved once (else
    ``None``). ``period`` may hold :class:`PathJump` items: skips of a nested loop within the
    period, replayed by their own map (``keep_map`` keeps this skip's map for that use).
    """
    keys = [(buf, r) for buf, written in path.writers.items() for r in written.regions()]
    var = {key: 2 + k for k, key in enumerate(keys)}
    forms: dict[int, WrittenRegions] = {}
    for buf, written in path.writers.items():
        copy = forms[buf] = WrittenRegions()
        for region in written.regions():
            copy._add(region, {var[(buf, region)]: 0})
        copy.disjoint = written.disjoint
    longest = {1: 0}
    for code in period:
        if isinstance(code, PathJump):
            longest = code.replay(forms, longest)
            if longest is None:
                return None
            continue
        for ins in code:
            if (ins[0] != ENQ and ins[0] != INLINE) or ins[2][0] != TILE:
                continue
            item = ins[2]
            start = {0: 0}
            for buf, region, write, _ in item[3]:
                written = forms.get(buf)
                if not write and written is not None:
                    for dep in written.depends(region):
                        start = _form_max(start, written.finish[dep])
            finish = {v: offset + item[1] for v, offset in start.items()}
            for buf, region, write, _ in item[3]:
                if write:
                    forms.setdefault(buf, WrittenRegions()).write(region, finish)
            longest = _form_max(longest, finish)
    for buf, written in forms.items():
        before = path.writers.get(buf)
        moved = [move(buf, r, 1) for r in before.regions()] if before is not None else []
        if written.regions() != moved or (before is not None and written.disjoint != before.disjoint):
            return None
    size = 2 + len(keys)
    step = np.full((size, size), -np.inf)
    step[0, 0] = 0
    for v, offset in longest.items():
        step[1, v] = offset
    for (buf, region), row in var.items():
        for v, offset in forms[buf].finish[move(buf, region, 1)].items():
            step[row, v] = offset
    state = np.full(size, -np.inf)
    state[0], state[1] = 0, path.longest
    for (buf, region), row in var.items():
        state[row] = path.writers[buf].finish[region]
    matrix = _max_plus_matrix_power(step, periods) if keep_map else None
    state = _max_plus_power(step, periods, state)
    if not np.all(np.abs(state[np.isfinite(state)]) < 2 ** 53):
        return None
    if matrix is not None and not np.all(np.abs(matrix[np.isfinite(matrix)]) < 2 ** 53):
        return None
    after = [(buf, move(buf, region, periods)) for buf, region in keys]
    disjoint = {buf: written.disjoint for buf, written in path.writers.items()}
    return PathJump(keys, after, disjoint, matrix,
                    int(state[1]), [int(state[var[key]]) for key in keys])


class PathJump:
    """A skip of repetitions of a period on one critical path: the regions before and after
    (moved), the result (``longest`` and each region's finish), and, when kept, the max-plus
    matrix of the whole skip (rows and columns: constant, longest, then the regions before), so
    an enclosing loop's period can replay the skip on forms (:meth:`replay`)."""

    def __init__(self, before: list, after: list, disjoint: dict, matrix, longest: int,
                 finishes: list[int]):
        self.before, self.after, self.disjoint = before, after, disjoint
        self.matrix, self.longest, self.finishes = matrix, longest, finishes

    def apply(self, path: CriticalPath) -> None:
        path.longest = self.longest
        rebuilt: dict[int, WrittenRegions] = {}
        for buf in path.writers:
            rebuilt[buf] = WrittenRegions()
        for (buf, region), finish in zip(self.after, self.finishes, strict=True):
            rebuilt[buf]._add(region, finish)
        for buf, fresh in rebuilt.items():
            fresh.disjoint = self.disjoint[buf]
        path.writers = rebuilt

    def replay(self, forms: dict, longest: dict) -> dict | None:
        """Apply the skip to max-plus forms (``forms`` rebuilt in place); returns the new
        longest form, or ``None`` when the forms' live regions are not those the skip started
        from (in the same order, per buffer) or its map was not kept."""
        if self.matrix is None:
            return None
        mine: dict[int, list] = {}
        for buf, region in self.before:
            mine.setdefault(buf, []).append(region)
        for buf, written in forms.items():
            if written.regions() != mine.get(buf, []):
                return None
            if buf in mine and written.disjoint != self.disjoint[buf]:
                return None
        if any(buf not in forms for buf in mine):
            return None
        old = [{0: 0}, longest] + [forms[buf].finish[region] for buf, region in self.before]
        rows = []
        for r in range(1, len(old)):
            form: dict = {}
            for c, entry in enumerate(self.matrix[r]):
                if entry == -np.inf:
                    continue
                for v, offset in old[c].items():
                    value = offset + int(entry)
                    if value > form.get(v, -INF_FORM):
                        form[v] = value
            rows.append(form)
        for buf in mine:
            fresh = forms[buf] = WrittenRegions()
            fresh.disjoint = self.disjoint[buf]
        for (buf, region), form in zip(self.after, rows[1:], strict=True):
            forms[buf]._add(region, form)
        return rows[0]


def _form_max(a: dict, b: dict) -> dict:
    """Max of two max-plus forms ``{variable: offset}``."""
    out = dict(a)
    for v, offset in b.items():
        if offset > out.get(v, -INF_FORM):
            out[v] = offset
    return out


INF_FORM = float("inf")


def _max_plus_matrix_power(matrix, power: int):
    """``matrix`` to the ``power`` in the max-plus semiring."""
    size = matrix.shape[0]
    result = np.full((size, size), -np.inf)
    np.fill_diagonal(result, 0)
    base = matrix
    while power:
        if power & 1:
            result = (base[:, :, None] + result[None, :, :]).max(axis=1)
        power >>= 1
        if power:
            base = (base[:, :, None] + base[None, :, :]).max(axis=1)
    return result


def _max_plus_power(matrix, power: int, vector):
    """``matrix`` to the ``power`` applied to ``vector`` in the max-plus semiring."""
    result = vector
    base = matrix
    while power:
        if power & 1:
            result = (base + result[None, :]).max(axis=1)
        power >>= 1
        if power:
            base = (base[:, :, None] + base[None, :, :]).max(axis=1)
    return result
