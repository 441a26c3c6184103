"""Rau-style iterative modulo scheduling with placement arms (the source document's scheduler).

Given a :class:`~tilesched.schedule.modulo.graph.ScheduleGraph`, :func:`modulo_schedule` finds an
initiation interval II and a start time per node meeting every dependence and the modulo resource
constraints (``validate.py`` states them), with II as small as it can, then the schedule as short
as the chosen rows allow. Everything is deterministic.

**Decomposition.** At a fixed II only the *rows* ``t mod II`` of capacity-using nodes matter for
resources, and dependences constrain rows only inside a strongly connected component: a
successor SCC can always be delayed by a multiple of II. So the capacity-using nodes of each SCC
form a :class:`~tilesched.schedule.modulo.graph.RecurrenceGroup` with pairwise bounds
``t(j) - t(i) >= D[i][j]`` (longest paths at this II), and scheduling is packing the groups into
the modulo reservation table. Oppermann et al. (FPL 2018) shrink exact models the same way. Once
every row is chosen, :func:`earliest_times` gives the least start times that keep them.

**II search** (:func:`_search_ii`): linear from MII; after ``linear_steps`` failures, galloping
then binary search. Before placing anything at an II, the window-density check
(:func:`~tilesched.schedule.modulo.mii.window_overload`) may prove that II infeasible.

**Placement at one II.** Groups go in a deterministic order (largest recurrence first); each
tries the arms in order and the first to seat the whole group wins:

- ``permute``: predecessor-priority order (ASAP, then height), earliest legal seat;
- ``fuse``: the group fused into one rigid footprint (its ASAP, then ALAP layout), probed at
  every shift modulo II;
- ``retry``: ``permute`` again with the ops that failed, recorded in a snapshot overlay, first;
  the canonical order is never mutated;
- ``cost``: a search that takes the op with the fewest legal seats first (as DSatur colours
  graphs; Brélaz, CACM 22(4), 1979) and ranks its seats lexicographically by one step of
  look-ahead (a seat that leaves another op of the group without any is illegal; then fewer ops
  left with a single seat), table pressure and distance from ASAP; it backtracks
  chronologically within a budget and restarts a few times with seeded tie-break orders.

When a group defeats every arm, the pass restarts with the failed groups first. If that fails
too, Rau's iterative modulo scheduling (Rau, "Iterative Modulo Scheduling", HP Labs HPL-94-115,
1994) runs on the whole graph: HeightR priority, earliest start from scheduled predecessors,
eviction of resource and dependence conflicts, a budget of ``budget_ratio`` steps per node.

A failed II leaves a :class:`PlacementFailure`: the op, its footprint, its dependence window,
the full table rows with their occupants, and the resource or pool that refused it.
"""

from __future__ import annotations

import dataclasses
import heapq
import random
from collections import Counter, deque
from dataclasses import dataclass, field

from tilesched.schedule.modulo.graph import (
    CompiledGraph,
    RecurrenceGroup,
    ScheduleGraph,
    group_distances,
    longest_paths,
    recurrence_groups,
)
from tilesched.schedule.modulo.mii import MiiBounds, compute_bounds, window_overload
from tilesched.schedule.modulo.reservation_table import ModuloReservationTable

ARMS = ("permute", "fuse", "retry", "cost")
IMS = "ims"
UNCONSTRAINED = "unconstrained"
WINDOW_DENSITY = "window-density"
COST_SEATS = 8  # seats the cost arm branches on per op (best ranked first)
COST_BUDGET = 8  # seatings per op and restart the cost arm may spend
COST_RESTARTS = 4  # the first run uses the priority order; the others seeded permutations


@dataclass(frozen=True)
class PlacementFailure:
    """Why one op could not be seated at one candidate II (structured, plus :meth:`text`)."""

    ii: int
    node: str
    footprint: tuple[tuple[int, str], ...]
    window: tuple[int | None, int | None]
    rows: dict[int, dict[str, tuple[str, ...]]]
    refused_by: str | None
    refused_by_pool: bool
    stage: str
    note: str = ""

    def text(self, max_rows: int = 8) -> str:
        """A multi-line human-readable account (at most ``max_rows`` table rows)."""
        if self.stage == WINDOW_DENSITY:
            return f"II {self.ii}: proved infeasible ({WINDOW_DENSITY}): {self.note}"
        foot = ", ".join(f"{res}@+{off}" for off, res in self.footprint) or "none"
        lo, hi = self.window
        window = "unbounded" if lo is None else f"[{lo}, {hi}]"
        lines = [f"II {self.ii}: cannot place {self.node} ({self.stage}): footprint {foot}; "
                 f"dependence window {window}"]
        cells = [(row, col, occ) for row, cols in sorted(self.rows.items())
                 for col, occ in sorted(cols.items())]
        for row, col, occ in cells[:max_rows]:
            lines.append(f"  row {row}: {col} full ({', '.join(occ)})")
        if len(cells) > max_rows:
            lines.append(f"  ... {len(cells) - max_rows} more full rows")
        if self.refused_by:
            kind = "capacity pool" if self.refused_by_pool else "resource"
            lines.append(f"  refused by {kind} {self.refused_by}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)


@dataclass
class IIAttempt:
    """One candidate II: whether it worked and how, or why not (``proven``: by a proof)."""

    ii: int
    feasible: bool
    method: str | None
    failure: PlacementFailure | None = None
    proven: bool = False


@dataclass
class ModuloResult:
    """The outcome of :func:`modulo_schedule`; ``ii`` is ``None`` when no II up to the cap worked.

    ``starts`` maps node ids to start cycles (earliest below II); ``stage_of[v] = starts[v] //
    ii``; ``stages`` is the stage count; ``length`` is ``max(start + latency)``; ``arms[v]`` names
    the arm (or ``ims``, or ``unconstrained`` for nodes using no capacity) that placed ``v``.
    ``lower_bound``: MII raised past every II the window-density check refuted.
    """

    bounds: MiiBounds
    ii: int | None = None
    starts: dict[str, int] = field(default_factory=dict)
    stages: int = 0
    length: int = 0
    arms: dict[str, str] = field(default_factory=dict)
    attempts: list[IIAttempt] = field(default_factory=list)

    @property
    def mii(self) -> int:
        """The lower bound the search started from."""
        return self.bounds.mii

    @property
    def lower_bound(self) -> int:
        """MII, raised past the IIs proved infeasible from MII upwards."""
        refuted = {a.ii for a in self.attempts if a.proven}
        bound = self.mii
        while bound in refuted:
            bound += 1
        return bound

    @property
    def stage_of(self) -> dict[str, int]:
        """Stage of every node (``start // II``)."""
        return {v: t // self.ii for v, t in self.starts.items()} if self.ii else {}

    @property
    def kernel_order(self) -> dict[str, int]:
        """Position of every node in the steady-state kernel: by row (``start mod II``), then
        stage, then insertion order (what ``tile.order`` records)."""
        if not self.ii:
            return {}
        index = {v: i for i, v in enumerate(self.starts)}
        ranked = sorted(self.starts, key=lambda v: (self.starts[v] % self.ii,
                                                    self.starts[v] // self.ii, index[v]))
        return {v: k for k, v in enumerate(ranked)}

    @property
    def failures(self) -> list[PlacementFailure]:
        """The diagnostics of every II that failed, in search order."""
        return [a.failure for a in self.attempts if a.failure is not None]


@dataclass
class _Overlay:
    """The retry snapshot overlay: ops and groups that failed, in failure order."""

    dead_nodes: dict[int, None] = field(default_factory=dict)
    dead_groups: dict[int, None] = field(default_factory=dict)
    tape: bool = False  # single ops go to the fuse arm first (after a single op failed)


def earliest_times(cg: CompiledGraph, ii: int, rows: list[int | None]) -> list[int]:
    """Least start times ``>= 0`` meeting every dependence with ``t(v) mod ii == rows[v]``.

    A Bellman-Ford fixpoint that rounds each node with a row up to that row; the constraints are
    monotone, so it converges to the least solution whenever one exists. The result is shifted
    down by a multiple of ``ii`` so the earliest start is below ``ii``. O(V * E) worst case.
    """
    n = cg.n
    t = [r if r is not None else 0 for r in rows]
    queue, queued = deque(range(n)), [True] * n
    limit = 1000 * (n + len(cg.edges)) + 100_000  # a safety net: feasible rows converge
    while queue:
        u = queue.popleft()
        queued[u] = False
        for v, sep, d in cg.succ[u]:
            need = t[u] + sep - ii * d
            if need > t[v]:
                if rows[v] is not None:
                    need += (rows[v] - need) % ii
                t[v] = need
                limit -= 1
                if limit < 0:
                    raise RuntimeError(f"rows admit no schedule at II {ii} (internal error)")
                if not queued[v]:
                    queued[v] = True
                    queue.append(v)
    shift = (min(t, default=0) // ii) * ii
    return [x - shift for x in t]


def _rows_mask(lo: int, hi: int, ii: int) -> int:
    """Bit set of the rows ``t mod ii`` for ``t`` in ``[lo, hi]``."""
    width = hi - lo + 1
    full = (1 << ii) - 1
    if width >= ii:
        return full
    if width <= 0:
        return 0
    mask = ((1 << width) - 1) << (lo % ii)
    return (mask | (mask >> ii)) & full


class _Placer:
    """Placement state for one candidate II: table, provisional start times, arms."""

    def __init__(self, cg: CompiledGraph, groups: list[RecurrenceGroup], ii: int,
                 budget_ratio: float):
        self.cg, self.ii, self.groups = cg, ii, groups
        self.asap, cycle = longest_paths(cg.succ, ii)
        if cycle is not None:
            raise ValueError(f"II {ii} is below RecMII")
        self.height, _ = longest_paths(cg.pred, ii)
        self.dmat = [group_distances(g, ii) for g in groups]
        self.group_of: dict[int, int] = {}
        self.pos: dict[int, int] = {}
        for gi, group in enumerate(groups):
            for i, v in enumerate(group.members):
                self.group_of[v] = gi
                self.pos[v] = i
        self.budget_ratio = budget_ratio
        self.table = ModuloReservationTable(ii, cg.column_capacity)
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

    def candidates(self, v: int, lo: int | None, hi: int | None) -> range | list[int]:
        """Start times to try, each row once: from the ASAP time (clipped into the window)
        upwards, then downwards below it."""
        ii, target = self.ii, self.asap[v]
        if lo is None:
            return range(target, target + ii)
        if hi - lo + 1 >= ii:
            start = min(max(lo, target), hi - ii + 1)
            return range(start, start + ii)
        start = min(max(lo, target), hi)
        return [*range(start, hi + 1), *range(start - 1, lo - 1, -1)]

    def legal_count(self, v: int, lo: int | None, hi: int | None) -> int:
        """Legal seats of ``v`` in its window (bit-parallel unless its footprint wraps onto
        itself)."""
        usage = self.cg.usage[v]
        if lo is not None and hi < lo:
            return 0
        rows = self.table.start_rows(usage)
        if rows is None:
            return sum(1 for t in self.candidates(v, lo, hi) if self.table.probe(usage, t))
        if lo is None:
            return rows.bit_count()
        return (rows & _rows_mask(lo, hi, self.ii)).bit_count()

    def seat(self, v: int, t: int) -> None:
        """Commit ``v`` at ``t`` (the table re-probes)."""
        self.table.commit(v, self.cg.usage[v], t)
        self.time[v] = t

    def unseat(self, v: int) -> None:
        """Remove ``v`` from the table."""
        self.table.release(v, self.cg.usage[v], self.time.pop(v))

    def seat_earliest(self, v: int, stage: str) -> bool:
        """Seat ``v`` at its first legal candidate; record a failure if there is none."""
        lo, hi = self.window(v)
        usage = self.cg.usage[v]
        for t in self.candidates(v, lo, hi):
            if self.table.probe(usage, t):
                self.seat(v, t)
                return True
        self.failure = self.describe_failure(v, lo, hi, stage)
        return False

    def clear_group(self, gi: int) -> None:
        """Unseat every member of group ``gi``."""
        for v in self.groups[gi].members:
            if v in self.time:
                self.unseat(v)

    def reset(self) -> None:
        """Empty table and times."""
        self.table = ModuloReservationTable(self.ii, self.cg.column_capacity)
        self.time.clear()
        self.arm.clear()
        self.tape.clear()

    # ---- the arms --------------------------------------------------------------------------

    def priority(self, v: int) -> tuple[int, int, int]:
        """Predecessor priority: earliest ASAP time first, then the tallest."""
        return (self.asap[v], -self.height[v], v)

    def arm_permute(self, gi: int, overlay: _Overlay) -> bool:
        """Cheap priority order, earliest legal seat for each op."""
        order = sorted(self.groups[gi].members, key=self.priority)
        return all(self.seat_earliest(v, "permute") for v in order)

    def arm_fuse(self, gi: int, overlay: _Overlay) -> bool:
        """A recurrence as one rigid footprint in its ASAP, then ALAP layout, at every shift.
        A single op is fused with the single ops already on its column instead: it starts
        where the last of them ended (or the next legal start), winding them around the table
        like a tape, which packs contiguous footprints without gaps (McNaughton's wrap-around
        rule)."""
        group = self.groups[gi]
        if not group.bounded:
            return self._wind(group.members[0])
        first = group.members[0]
        for layout in (self.asap, [-h for h in self.height]):
            fused = tuple(
                (layout[v] - layout[first] + off, col)
                for v in group.members for off, col in self.cg.usage[v]
            )
            for t in self.candidates(first, None, None):
                if self.table.probe(fused, t):
                    for v in group.members:
                        self.seat(v, t + layout[v] - layout[first])
                    return True
        return False

    def _wind(self, v: int) -> bool:
        """Seat single op ``v`` at the first legal start from its column's tape head."""
        usage = self.cg.usage[v]
        col = usage[0][1]
        head = self.tape.get(col, self.asap[v])
        for t in range(head, head + self.ii):
            if self.table.probe(usage, t):
                self.seat(v, t)
                self.tape[col] = t + 1 + max(off for off, c in usage if c == col)
                return True
        return False

    def arm_retry(self, gi: int, overlay: _Overlay) -> bool:
        """Rerun the earliest-seat pass with failed ops first, marking each new failure dead."""
        group = self.groups[gi]
        for _ in range(len(group.members)):
            for v in self.overlay_order(gi, overlay):
                if not self.seat_earliest(v, "retry"):
                    self.clear_group(gi)
                    if v in overlay.dead_nodes:
                        return False
                    overlay.dead_nodes[v] = None
                    break
            else:
                return True
        return False

    def overlay_order(self, gi: int, overlay: _Overlay) -> list[int]:
        """The priority order with the overlay's dead ops of this group first (stable)."""
        members = self.groups[gi].members
        dead = [v for v in overlay.dead_nodes if self.group_of.get(v) == gi]
        return dead + [v for v in sorted(members, key=self.priority) if v not in overlay.dead_nodes]

    def arm_cost(self, gi: int, overlay: _Overlay) -> bool:
        """Look-ahead search with DSatur order and ranked seats (see the module docstring).

        At most ``COST_RESTARTS * COST_BUDGET * k`` seatings, each ranking up to
        :data:`COST_SEATS` seats with O(k) look-ahead: O(k^2) per seating.
        """
        members = self.groups[gi].members
        order = self.overlay_order(gi, overlay)
        deepest: list = [-1, None]
        for restart in range(COST_RESTARTS):
            if restart:
                random.Random(restart * 1_000_003 + self.ii).shuffle(order)
            rank = {v: r for r, v in enumerate(order)}
            if self._cost_search(gi, rank, COST_BUDGET * len(members), deepest):
                return True
            self.clear_group(gi)
        self.failure = deepest[1]
        overlay.dead_nodes.setdefault(self.cg.ids.index(self.failure.node), None)
        return False

    def _cost_search(self, gi: int, rank: dict[int, int], budget: int, deepest: list) -> bool:
        """Depth-first search over seats with chronological backtracking, ``budget`` seatings."""
        members = self.groups[gi].members
        bounds: dict = {v: (None, None) for v in members}
        left = set(members)
        frames: list[tuple[int, list[int], int, dict]] = []
        while left:
            v, seats = self._cost_choice(gi, left, bounds, rank)
            frames.append((v, seats, -1, bounds))
            while True:
                v, seats, i, saved = frames.pop()
                if i >= 0:
                    self.unseat(v)
                    left.add(v)
                bounds, i = saved, i + 1
                if i < len(seats):
                    budget -= 1
                    if budget < 0:
                        if deepest[1] is None:
                            deepest[:] = [len(frames), self.describe_failure(
                                v, *saved[v], "cost", note="search budget exhausted")]
                        return False
                    frames.append((v, seats, i, saved))
                    bounds = self._cost_apply(gi, v, seats[i], left, bounds)
                    break
                if len(frames) > deepest[0]:
                    note = ("every legal seat leaves another op of its recurrence without one"
                            if self.legal_count(v, *saved[v]) else "")
                    deepest[:] = [len(frames), self.describe_failure(v, *saved[v], "cost", note)]
                if not frames:
                    return False
        return True

    def _cost_choice(self, gi: int, left: set[int], bounds: dict,
                     rank: dict) -> tuple[int, list[int]]:
        """The op with the fewest legal seats, and its :data:`COST_SEATS` seats nearest its
        ASAP time ranked by :meth:`_seat_cost`."""
        v = min(left, key=lambda u: (self.legal_count(u, *bounds[u]), rank[u]))
        lo, hi = bounds[v]
        usage = self.cg.usage[v]
        seats = [t for t in self.candidates(v, lo, hi) if self.table.probe(usage, t)]
        cost = {t: self._seat_cost(gi, v, t, left, bounds) for t in seats[:COST_SEATS]}
        return v, sorted((t for t in cost if cost[t][0] == 0), key=cost.__getitem__)

    def _seat_cost(self, gi: int, v: int, t: int, left: set[int], bounds: dict) -> tuple:
        """Lexicographic cost of seating ``v`` at ``t``: ops of the group left without a seat
        (one step of look-ahead), ops left with one seat, table pressure, distance from ASAP."""
        dmat, i = self.dmat[gi], self.pos[v]
        self.seat(v, t)
        wipeouts = scarce = 0
        for u in left:
            if u == v:
                continue
            j = self.pos[u]
            lo, hi = t + dmat[i][j], t - dmat[j][i]
            if bounds[u][0] is not None:
                lo, hi = max(lo, bounds[u][0]), min(hi, bounds[u][1])
            free = self.legal_count(u, lo, hi)
            wipeouts += free == 0
            scarce += free == 1
        self.unseat(v)
        usage = self.cg.usage[v]
        return (wipeouts, scarce, self.table.pressure(usage, t), abs(t - self.asap[v]))

    def _cost_apply(self, gi: int, v: int, t: int, left: set[int], bounds: dict) -> dict:
        """Seat ``v`` at ``t``; return the windows of the ops still ``left``, narrowed. O(k)."""
        self.seat(v, t)
        left.discard(v)
        dmat, i = self.dmat[gi], self.pos[v]
        narrowed = {}
        for u in left:
            j = self.pos[u]
            lo, hi = t + dmat[i][j], t - dmat[j][i]
            if bounds[u][0] is not None:
                lo, hi = max(lo, bounds[u][0]), min(hi, bounds[u][1])
            narrowed[u] = (lo, hi)
        return narrowed

    # ---- driving the arms --------------------------------------------------------------------

    def group_order(self, overlay: _Overlay) -> list[int]:
        """Dead groups first; then recurrences (largest first); then single ops, widest first."""
        def key(gi: int) -> tuple:
            group = self.groups[gi]
            v = group.members[0]
            return (-len(group.members), -len(self.cg.usage[v]), self.asap[v], gi)
        rest = sorted((gi for gi in range(len(self.groups)) if gi not in overlay.dead_groups),
                      key=key)
        return list(overlay.dead_groups) + rest

    def place_with_arms(self, rounds: int) -> bool:
        """All groups by the arms; on a failed group, restart with it first (``rounds`` times).

        When a single op failed (its column fragmented), the restarts also put the fuse arm
        first for single ops, which winds them onto their columns like a tape.
        """
        overlay = _Overlay()
        for _ in range(rounds + 1):
            order = self.group_order(overlay)
            failed = self._place_groups(order, overlay)
            if failed is None:
                return True
            self.reset()
            if not self.groups[failed].bounded and not overlay.tape:
                overlay.tape = True
                continue
            if failed in overlay.dead_groups or failed == order[0]:
                return False
            overlay.dead_groups[failed] = None
        return False

    def _place_groups(self, order: list[int], overlay: _Overlay) -> int | None:
        """Place groups in ``order``; return the first group no arm could seat."""
        tape_first = ("fuse", *(arm for arm in ARMS if arm != "fuse"))
        for gi in order:
            single = not self.groups[gi].bounded
            for arm in tape_first if single and overlay.tape else ARMS:
                if getattr(self, f"arm_{arm}")(gi, overlay):
                    for v in self.groups[gi].members:
                        self.arm[v] = arm
                    break
                self.clear_group(gi)
            else:
                return gi
        return None

    # ---- Rau's iterative modulo scheduling ---------------------------------------------------

    def iterative_modulo_schedule(self) -> bool:
        """Rau's IMS on the whole graph; on success ``time`` holds every capacity user.

        HeightR priority; Estart from scheduled predecessors; the first conflict-free slot in
        ``[Estart, Estart + II)``, else Estart or one past the previous slot with eviction of the
        conflicting ops; successors whose dependence breaks are evicted. O(budget * (deg + II)).
        """
        self.reset()
        cg = self.cg
        rank = [0] * cg.n
        for r, v in enumerate(sorted(range(cg.n), key=lambda v: (-self.height[v],
                                                                 self.asap[v], v))):
            rank[v] = r
        start: list[int | None] = [None] * cg.n
        previous: list[int | None] = [None] * cg.n
        heap = [(rank[v], v) for v in range(cg.n)]
        heapq.heapify(heap)
        budget = int(self.budget_ratio * cg.n) + 1
        evictions: Counter = Counter()
        while heap:
            _, v = heapq.heappop(heap)
            if start[v] is not None:
                continue
            if budget == 0:
                self._ims_failure(v, start, evictions)
                return False
            budget -= 1
            t = self._ims_slot(v, start, previous[v])
            for u in self._ims_evict(v, t, start, rank):
                evictions[u] += 1
                heapq.heappush(heap, (rank[u], u))
            if cg.usage[v]:
                self.seat(v, t)
                self.arm[v] = IMS
            start[v] = previous[v] = t
        return True

    def _ims_estart(self, v: int, start: list[int | None]) -> int:
        """Earliest start allowed by the scheduled predecessors (Rau's CalculateEarlyStart)."""
        ii = self.ii
        return max((start[u] + sep - ii * d for u, sep, d in self.cg.pred[v]
                    if start[u] is not None), default=0)

    def _ims_slot(self, v: int, start: list[int | None], previous: int | None) -> int:
        """Rau's FindTimeSlot."""
        estart = self._ims_estart(v, start)
        usage = self.cg.usage[v]
        if not usage:
            return estart
        for t in range(estart, estart + self.ii):
            if self.table.probe(usage, t):
                return t
        return estart if previous is None or estart > previous else previous + 1

    def _ims_evict(self, v: int, t: int, start: list[int | None], rank: list[int]) -> list[int]:
        """Unschedule the ops that conflict with ``v`` at ``t`` (resources, then successors)."""
        evicted = []
        usage = self.cg.usage[v]
        while usage and not self.table.probe(usage, t):
            occupants = set(self.table.conflicts(usage, t)[0].occupants)
            victim = max(occupants, key=lambda u: (rank[u], u))
            self.unseat(victim)
            start[victim] = None
            evicted.append(victim)
        for w, sep, d in self.cg.succ[v]:
            if w != v and start[w] is not None and start[w] < t + sep - self.ii * d:
                if self.cg.usage[w]:
                    self.unseat(w)
                start[w] = None
                evicted.append(w)
        return evicted

    def _ims_failure(self, v: int, start: list[int | None], evictions: Counter) -> None:
        """Record the IMS budget exhaustion as a :class:`PlacementFailure`."""
        estart = self._ims_estart(v, start)
        worst = max(evictions, key=lambda u: (evictions[u], -u), default=v)
        self.failure = self.describe_failure(
            v, estart, estart + self.ii - 1, IMS,
            note=f"IMS budget exhausted; {self.cg.ids[worst]} was evicted "
                 f"{evictions[worst]} times")

    # ---- diagnostics -------------------------------------------------------------------------

    def describe_failure(self, v: int, lo, hi, stage: str, note: str = "") -> PlacementFailure:
        """Collect the full rows ``v`` met over its candidates, and the column refusing most."""
        cg = self.cg
        rows: dict[int, dict[str, tuple[str, ...]]] = {}
        refusals: Counter = Counter()
        if lo is None or lo <= hi:
            for t in self.candidates(v, lo, hi):
                for c in self.table.conflicts(cg.usage[v], t):
                    name = cg.columns[c.column]
                    rows.setdefault(c.row, {})[name] = tuple(cg.ids[u] for u in c.occupants)
                    refusals[c.column] += 1
        col = max(refusals, key=lambda c: (refusals[c], -c), default=None)
        footprint = tuple((off, cg.columns[c]) for off, c in cg.usage[v])
        return PlacementFailure(
            ii=self.ii, node=cg.ids[v], footprint=footprint, window=(lo, hi), rows=rows,
            refused_by=None if col is None else cg.columns[col],
            refused_by_pool=col in cg.pool_columns, stage=stage, note=note)


def _search_ii(feasible, lower: int, upper: int, linear_steps: int) -> int | None:
    """Least II in ``[lower, upper]`` with ``feasible(ii)``: linear first, then galloping and
    binary search over the rest (a speed-up that assumes monotonicity beyond the linear part;
    feasibility is not monotone in II in general, which exact mode audits).

    ``feasible`` returns ``True``, ``False``, or ``None`` for an II proved infeasible; proofs are
    cheap, so they do not count against the ``linear_steps`` heuristic failures.
    """
    ii, failures = lower, 0
    while ii <= upper and failures < linear_steps:
        answer = feasible(ii)
        if answer:
            return ii
        failures += answer is not None
        ii += 1
    bad, step = ii - 1, 1
    while bad < upper:
        probe = min(bad + step, upper)
        if feasible(probe):
            good = probe
            break
        bad, step = probe, step * 2
    else:
        return None
    while good - bad > 1:
        mid = (bad + good) // 2
        if feasible(mid):
            good = mid
        else:
            bad = mid
    return good


def modulo_schedule(
    graph: ScheduleGraph,
    *,
    max_ii: int | None = None,
    max_stages: int | None = None,
    budget_ratio: float = 6.0,
    retry_rounds: int = 3,
    linear_steps: int = 8,
) -> ModuloResult:
    """Modulo-schedule ``graph`` (see the module docstring); deterministic.

    ``max_ii`` caps the search (default: MII plus the total footprint, at least 16);
    ``max_stages`` rejects schedules with more stages and raises MII by the dependency bound.
    Raises :class:`~tilesched.schedule.modulo.graph.GraphError` for graphs no II can schedule
    (zero-distance positive cycles, capacity 0 in use).
    """
    cg = graph.compiled()
    bounds = compute_bounds(cg, max_stages)
    result = ModuloResult(bounds)
    groups = recurrence_groups(cg)
    total = sum(len(u) for u in cg.usage)
    upper = max_ii if max_ii is not None else bounds.mii + max(total, 16)
    found: dict[int, tuple[_Placer, list[int]]] = {}

    def feasible(ii: int) -> bool:
        attempt, placer, times = _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages)
        result.attempts.append(attempt)
        if attempt.feasible:
            found[ii] = (placer, times)
        return None if attempt.proven else attempt.feasible

    ii = _search_ii(feasible, bounds.mii, upper, linear_steps) if bounds.mii <= upper else None
    if ii is None:
        return result
    placer, times = found[ii]
    result.ii = ii
    result.starts = {cg.ids[v]: t for v, t in enumerate(times)}
    result.stages = max(times, default=0) // ii + 1
    result.length = max((t + lat for t, lat in zip(times, cg.latency, strict=True)), default=0)
    result.arms = {cg.ids[v]: placer.arm.get(v, UNCONSTRAINED) for v in range(cg.n)}
    return result


def _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages):
    """Try one II: window-density proof, arms, then IMS. Returns ``(IIAttempt, placer, times)``."""
    placer = _Placer(cg, groups, ii, budget_ratio)
    for v, usage in enumerate(cg.usage):
        if usage and not placer.table.probe(usage, 0):
            failure = placer.describe_failure(v, None, None, WINDOW_DENSITY,
                                              note="its footprint overlaps itself modulo II")
            return IIAttempt(ii, False, None, failure, proven=True), None, None
    for gi, group in enumerate(groups):
        overload = window_overload(cg, group.members, placer.dmat[gi], ii)
        if overload is not None:
            failure = PlacementFailure(
                ii, overload.hub, (), (overload.first, overload.last), {}, overload.column,
                overload.column in {cg.columns[c] for c in cg.pool_columns}, WINDOW_DENSITY,
                note=overload.text())
            return IIAttempt(ii, False, None, failure, proven=True), None, None
    method = "arms" if placer.place_with_arms(retry_rounds) else None
    arms_failure = placer.failure
    if method is None and placer.iterative_modulo_schedule():
        method = IMS
    if method is None:
        failure = arms_failure or placer.failure
        if arms_failure is not None and placer.failure is not None:
            notes = [arms_failure.note, f"then Rau's IMS: {placer.failure.note}"]
            failure = dataclasses.replace(arms_failure, note="; ".join(n for n in notes if n))
        return IIAttempt(ii, False, None, failure), None, None
    rows: list[int | None] = [None] * cg.n
    for v, t in placer.time.items():
        rows[v] = t % ii
    times = earliest_times(cg, ii, rows)
    stages = max(times, default=0) // ii + 1
    if max_stages and stages > max_stages:
        failure = PlacementFailure(ii, "", (), (None, None), {}, None, False, method,
                                   note=f"schedule needs {stages} stages > cap {max_stages}")
        return IIAttempt(ii, False, method, failure), None, None
    return IIAttempt(ii, True, method), placer, times
