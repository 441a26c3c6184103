"""Event-aware list scheduling of a block's children (the core of ``reorder-events``).

A Kahn-style list scheduler (Kahn 1962; the source document's OutOfOrderScheduler) builds
the order one node at a time from the ready set, and keeps the *flag pressure* of every
directed unit pair within the target's event limit. The event model is the one insert-sync
allocates with (:class:`tilesched.schedule.flag_plan.FlagTracker`): one flag per producer
and destination unit (broadcast: later consumers on that unit are covered), a consumer waits
only for the latest producer it needs on each unit, and an event id is free again only when
its wait happens-before the next set (not merely when it comes first in program order).

Candidate choice, per step:

1. *free* nodes (index math, views, allocations) as soon as they are ready;
2. compute before control (the source document's Strategy A): an ``scf.for`` / ``scf.if``
   is taken only when no compute node is ready; control nodes keep their relative order
   (a stability chain of edges, built by the pass);
3. strict mode drops candidates after which some pair's pressure would exceed the limit
   (pressure = ids held + pending producers; staying within it guarantees insert-sync never
   runs out of ids, see docs/reorder-events.md);
4. the rest are ranked by a key that combines the pick strategy (the source document's
   three: ``min-max-sum``, ``min-sum-max``, ``min-max`` over the predicted pressures), the
   first-consumer priority (prefer a candidate that releases pressure) and speed: earliest
   start on its unit, then the longest path to the end (critical path), then the unit's
   remaining work (unit balance), then the original index.

Several variants of that key (events first or speed first; *paced* or eager flag use) are
run, each finished order is evaluated exactly — the flags insert-sync will plan
(:func:`evaluate_order`) and the cycles they cost (:func:`replay_makespan`) — and the best is
kept: an order that fits the limit, then fewer cycles, then the original order on ties.
When no variant fits (strict mode fails), or every fitting order is slower than the
original one, the same variants run relaxed and the fastest order wins; the caller reports
this with a warning.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from math import ceil

from tilesched.schedule.flag_plan import (
    BARRIER_ALL,
    PIPE_BARRIER,
    SET,
    WAIT,
    FlagTracker,
    Item,
    SyncOp,
    count_fallbacks,
    ids_used,
    plan_flags,
    plan_loop_flags,
)
from tilesched.schedule.list_schedule import (
    BARRIER,
    FENCE,
    OP,
    PIPE,
    SET_FLAG,
    WAIT_FLAG,
    Timeline,
    bottom_levels,
    remaining_work,
    replay,
)
from tilesched.schedule.segment import Segment

STRATEGIES = ("min-max-sum", "min-sum-max", "min-max")
CANDIDATES_PER_UNIT = 2   # ready nodes ranked per unit (by index, by critical path)
SMALL_SEGMENT = 200       # up to this size, strategy "all" tries the three pick strategies
LARGE_SEGMENT = 1500      # above this, four variants run
SEARCH_SEGMENT = 60       # local search polishes the chosen order of segments up to this size
SEARCH_EVALUATIONS = 200  # exact evaluations the local search may spend


@dataclass(frozen=True)
class Machine:
    """What the event model and the timing need to know about the target."""

    limit: int
    pipelined: frozenset[str] = frozenset()
    issue_cycles: int = 1
    inline_units: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Variant:
    """One way of ranking candidates (see the module docstring)."""

    strategy: str = "min-max-sum"
    speed_first: bool = False
    paced: bool = False
    optimistic: bool = False

    @property
    def name(self) -> str:
        return (f"{self.strategy}/{'speed' if self.speed_first else 'events'}-first"
                f"/{'paced' if self.paced else 'eager'}"
                f"/{'optimistic' if self.optimistic else 'safe'}")


@dataclass
class OrderCost:
    """An order, the flags insert-sync would give it, and the cycles they cost."""

    order: list[int]
    fallbacks: int
    peak_events: dict[str, int]
    ids_used: dict[str, int]
    makespan: int
    variant: str = "original"
    live_events: dict[str, int] = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        return self.fallbacks == 0


@dataclass
class SegmentSchedule:
    """The chosen order of a segment and what the choice was made against."""

    best: OrderCost
    original: OrderCost
    strict: bool  # the chosen order fits the event limit
    tried: list[OrderCost] = field(default_factory=list)
    fit_found: bool = True  # some order that fits was found (maybe slower than ``best``)

    @property
    def changed(self) -> bool:
        return self.best.order != self.original.order


# ---------------------------------------------------------------------------- evaluation


def evaluate_order(segment: Segment, order: list[int], machine: Machine,
                   variant: str = "original") -> OrderCost:
    """Plan the flags of ``order`` exactly as insert-sync does, and time the result.

    Mirrors ``sync_flags.FlagSync``: a loop body without boundaries is planned with
    :func:`plan_loop_flags` (back-edge flags for loop-carried dependences); otherwise the
    order is cut at boundary control nodes and each piece planned with :func:`plan_flags`.
    """
    position = {node: k for k, node in enumerate(order)}
    has_boundary = any(segment.boundary)
    if segment.carried is not None and not has_boundary:
        return _evaluate_loop(segment, order, position, machine, variant)
    entries: list[tuple] = []
    fallbacks, peaks, used = 0, {}, {}
    for piece in _pieces(segment, order):
        if isinstance(piece, int):
            entries.append((FENCE, segment.durations[piece]))
            continue
        plan = _plan_piece(segment, piece, machine)
        fallbacks += count_fallbacks(plan.ops)
        _merge_max(peaks, plan.peak_events)
        _merge_max(used, ids_used(plan.ops))
        entries.extend(_entries(segment, piece, plan.ops))
    if segment.carried is not None:  # a loop body with boundaries: barrier_all ends each iteration
        entries.append((BARRIER,))
    timed = replay(entries * max(1, segment.trips), machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), fallbacks, peaks, used, timed.makespan, variant,
                     timed.live_events)


def evaluate_tracked(segment: Segment, scheduler: EventListScheduler) -> OrderCost:
    """:func:`evaluate_order` for an order a strict run built without running out of ids:
    its tracker already holds exactly the flags :func:`plan_flags` would plan (positions in
    the order; boundaries restart the planner as insert-sync does), so only the timing is
    left to compute. Not for loop bodies (their back-edge flags are planned separately)."""
    tracker, order = scheduler.tracker, scheduler.order
    by_position: dict[int, list[SyncOp]] = {}
    for sync in tracker.ops:
        by_position.setdefault(sync.position, []).append(sync)
    entries: list[tuple] = []
    for k in range(len(order) + 1):
        for sync in sorted(by_position.get(k, []), key=lambda s: s.order):
            entries.append(_sync_entry(sync))
        if k < len(order):
            node = order[k]
            if segment.boundary[node]:
                entries.append((FENCE, segment.durations[node]))
            elif segment.units[node] is not None:
                entries.append((OP, segment.units[node], segment.durations[node]))
    machine = scheduler.machine
    timed = replay(entries * max(1, segment.trips), machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), 0, tracker.peak_events(), ids_used(tracker.ops),
                     timed.makespan, scheduler.variant.name, timed.live_events)


def _evaluate_loop(segment, order, position, machine, variant) -> OrderCost:
    items = [segment.item(node) for node in order]
    deps = sorted((position[i], position[j]) for i, j in segment.deps)
    carried = [(position[i], position[j], d) for i, j, d in segment.carried]
    plan = plan_loop_flags(items, deps, carried, machine.limit, machine.pipelined)
    fallbacks = count_fallbacks(plan.body) + int(plan.serialized)
    body = _entries(segment, order, plan.body)
    entries = ([_sync_entry(s) for s in plan.presets] + body * max(1, segment.trips)
               + [_sync_entry(s) for s in plan.drains])
    timed = replay(entries, machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), fallbacks, dict(plan.peak_events),
                     ids_used(plan.body + plan.presets), timed.makespan, variant,
                     timed.live_events)


def _pieces(segment: Segment, order: list[int]) -> list:
    """The order cut at boundary nodes: lists of nodes, and the boundary nodes themselves."""
    pieces, current = [], []
    for node in order:
        if segment.boundary[node]:
            pieces.extend([current, node])
            current = []
        else:
            current.append(node)
    pieces.append(current)
    return [p for p in pieces if p != []]


def _plan_piece(segment: Segment, piece: list[int], machine: Machine):
    local = {node: k for k, node in enumerate(piece)}
    deps = sorted((local[i], local[j]) for j in piece for i in segment.dep_preds[j] if i in local)
    items = [segment.item(node) for node in piece]
    return plan_flags(items, deps, machine.limit, machine.pipelined)


def _entries(segment: Segment, nodes: list[int], syncs: list[SyncOp]) -> list[tuple]:
    """Timing entries for ``nodes`` in order with ``syncs`` inserted at their positions."""
    by_position: dict[int, list[SyncOp]] = {}
    for sync in syncs:
        by_position.setdefault(sync.position, []).append(sync)
    entries = []
    for k in range(len(nodes) + 1):
        for sync in sorted(by_position.get(k, []), key=lambda s: s.order):
            entries.append(_sync_entry(sync))
        if k < len(nodes) and segment.units[nodes[k]] is not None:
            entries.append((OP, segment.units[nodes[k]], segment.durations[nodes[k]]))
    return entries


def _sync_entry(sync: SyncOp) -> tuple:
    if sync.kind == SET:
        return (SET_FLAG, sync.src, sync.dst, sync.event)
    if sync.kind == WAIT:
        return (WAIT_FLAG, sync.src, sync.dst, sync.event)
    if sync.kind == PIPE_BARRIER:
        return (PIPE, sync.src)
    assert sync.kind == BARRIER_ALL
    return (BARRIER,)


def _merge_max(into: dict[str, int], other: dict[str, int]) -> None:
    for key, value in other.items():
        into[key] = max(into.get(key, 0), value)


# ---------------------------------------------------------------------------- list scheduling


class _ReadyQueue:
    """The ready nodes of one unit, ranked two ways (original index; longest path first)."""

    def __init__(self, levels: list[int]) -> None:
        self.levels = levels
        self.members: set[int] = set()
        self.by_index: list[int] = []
        self.by_level: list[tuple[int, int]] = []

    def add(self, node: int) -> None:
        self.members.add(node)
        heapq.heappush(self.by_index, node)
        heapq.heappush(self.by_level, (-self.levels[node], node))

    def top(self, count: int) -> list[int]:
        """Up to ``count`` best nodes by each ranking (stale heap entries are dropped)."""
        if len(self.members) <= 2 * count:
            return list(self.members)
        found = set()
        for heap, node_of in ((self.by_index, lambda e: e), (self.by_level, lambda e: e[1])):
            kept = []
            while heap and len(kept) < count:
                entry = heapq.heappop(heap)
                if node_of(entry) in self.members:
                    kept.append(entry)
            for entry in kept:
                heapq.heappush(heap, entry)
            found.update(node_of(e) for e in kept)
        return list(found)


class EventListScheduler:
    """One run of the event-aware list scheduler with one :class:`Variant`.

    ``run()`` returns the order, or ``None`` when strict mode reaches a state where every
    candidate is forbidden. Candidates per step: a few ready nodes per unit by index and by
    critical path, plus the ready consumers of each pair's latest pending producer (the
    consumer whose single wait covers every pending producer of the pair).
    """

    def __init__(self, segment: Segment, machine: Machine, variant: Variant,
                 enforce: bool = True) -> None:
        self.segment = segment
        self.machine = machine
        self.variant = variant
        self.enforce = enforce
        self.reserved = _reserved_pairs(segment, machine.limit)
        self.tracker = FlagTracker(machine.limit, machine.pipelined, self.reserved)
        self.timeline = Timeline(segment)
        self.levels = bottom_levels(segment)
        self.work = remaining_work(segment)
        self.order: list[int] = []
        self.position: dict[int, int] = {}
        self.producers: dict[int, list[int]] = {}  # ready node -> latest producer per unit
        self.indegree = [len(p) for p in segment.preds]
        self.future = _producer_counts(segment)
        self.free_ready: list[int] = []
        self.control_ready: list[int] = []
        self.ready: dict[str, _ReadyQueue] = {}
        for node in range(len(segment)):
            if not self.indegree[node]:
                self._make_ready(node)

    def run(self) -> list[int] | None:
        """Build the whole order (or fail in strict mode)."""
        while len(self.order) < len(self.segment):
            if self.free_ready:
                node = heapq.heappop(self.free_ready)
            else:
                node = self._pick()
                if node is None:
                    return None
            self._commit(node)
        return self.order

    # -------------------------------------------------------------- ready set

    def _make_ready(self, node: int) -> None:
        segment = self.segment
        if segment.is_free(node):
            heapq.heappush(self.free_ready, node)
            return
        self.producers[node] = self._latest_producers(node)
        if segment.control[node]:
            heapq.heappush(self.control_ready, node)
        else:
            unit = segment.units[node]
            if unit not in self.ready:
                self.ready[unit] = _ReadyQueue(self.levels)
            self.ready[unit].add(node)

    def _latest_producers(self, node: int) -> list[int]:
        """Positions of the latest scheduled producer of ``node`` on each unit: all the flag
        planner looks at (a wait for the latest covers the earlier ones)."""
        latest: dict[str | None, int] = {}
        units = self.segment.units
        for producer in self.segment.dep_preds[node]:
            position = self.position[producer]
            unit = units[producer]
            if latest.get(unit, -1) < position:
                latest[unit] = position
        return sorted(latest.values())

    def _candidates(self) -> list[int]:
        """Ready compute nodes (see the class docstring), else the next control node."""
        found = set()
        for queue in self.ready.values():
            found.update(queue.top(CANDIDATES_PER_UNIT))
        for pair in self.tracker.pressure():
            position = self.tracker.latest_pending(pair)
            queue = self.ready.get(pair[1])
            if position is None or queue is None:
                continue
            found.update(c for c in self.segment.dep_succs[self.order[position]]
                         if c in queue.members)
        if not found and self.control_ready:
            found.add(self.control_ready[0])
        return sorted(found)

    # -------------------------------------------------------------- choosing

    def _pick(self) -> int | None:
        current = self.tracker.pressure()
        best, best_key = None, None
        for node in self._candidates():
            key = self._key(node, current)
            if key is not None and (best_key is None or key < best_key):
                best, best_key = node, key
        return best

    def _key(self, node: int, current: dict) -> tuple | None:
        """The ranking key of ``node`` (lower is better), or None if strict mode forbids it."""
        segment, tracker = self.segment, self.tracker
        item = segment.item(node)
        producers = self.producers[node]
        if segment.boundary[node]:
            changed = {pair: int(pair in self.reserved) for pair in current}
            flags = []
        else:
            needed = tracker.flags_needed(item, producers)
            changed = tracker.preview(item, producers, segment.consumers[node], needed)
            flags = needed or []
        if self.enforce and self._forbidden(node, item, producers, changed):
            return None
        releases = any(v < current.get(pair, 0) for pair, v in changed.items())
        if len(changed) == len(current):
            after = changed
        else:
            after = dict(current)
            after.update(changed)
        events = _strategy_key(self.variant.strategy, after)
        unit = segment.units[node]
        speed = (self.timeline.earliest_start(node), -self.levels[node], -self.work[unit])
        premature = self.variant.paced and self._premature(node, flags)
        if self.variant.speed_first:
            return (premature, speed, events, node)
        return (premature, not releases, events, speed, node)

    def _forbidden(self, node: int, item, producers: list[int], changed: dict) -> bool:
        """Strict mode: a *safe* variant keeps every pair's pressure within the limit (no
        dead end is then possible); an *optimistic* one only refuses a candidate whose own
        flags would find no free id now (it may run into a dead end, and then fails)."""
        if self.variant.optimistic:
            return not self.segment.boundary[node] and self.tracker.overflows(item, producers)
        return any(v > self.machine.limit for v in changed.values())

    def _premature(self, node: int, flags: list[int]) -> bool:
        """Paced mode: would ``node`` spend an event id on a group of pending producers that
        is still smaller than the remaining demand divided by the ids left?"""
        unit = self.segment.units[node]
        for producer in flags:
            pair = (self.tracker.items[producer].unit, unit)
            future = self.future.get(pair, 0)
            if not future:
                continue
            pending = self.tracker.pending(pair)
            budget = self.machine.limit - self.tracker.held(pair) - (pair in self.reserved)
            if budget <= 0 or pending < ceil((pending + future) / budget):
                return True
            if producer != self.tracker.latest_pending(pair):
                return True  # a wait for an older producer would leave newer ones uncovered
        return False

    # -------------------------------------------------------------- committing

    def _commit(self, node: int) -> None:
        segment = self.segment
        self.position[node] = len(self.order)
        self.order.append(node)
        if segment.boundary[node]:
            self.tracker.boundary()
        elif segment.is_free(node):
            self.tracker.add(Item(None), [], ())
        else:
            self.tracker.add(segment.item(node), self.producers.pop(node), segment.consumers[node])
        self.timeline.place(node)
        unit = segment.units[node]
        self.work[unit] -= segment.durations[node]
        if segment.control[node]:
            heapq.heappop(self.control_ready)
        elif not segment.is_free(node):
            self.ready[unit].members.discard(node)
        if unit is not None and not segment.inline[node] and not segment.boundary[node]:
            for dst in segment.consumers[node]:
                if dst != unit:
                    self.future[(unit, dst)] -= 1
        for succ in segment.succs[node]:
            self.indegree[succ] -= 1
            if not self.indegree[succ]:
                self._make_ready(succ)


def _strategy_key(strategy: str, pressure: dict) -> tuple:
    """The source document's pick strategies over the predicted pressure per pair."""
    worst = max(pressure.values(), default=0)
    total = sum(pressure.values())
    if strategy == "min-sum-max":
        return (total, worst)
    if strategy == "min-max":
        return (worst,)
    return (worst, total)


def _reserved_pairs(segment: Segment, limit: int) -> dict[tuple[str, str], int]:
    """Pairs that may need a back-edge flag in a loop body (insert-sync reserves one id)."""
    if segment.carried is None or any(segment.boundary):
        return {}
    reserved = {}
    for i, j, _ in segment.carried:
        src, dst = segment.units[i], segment.units[j]
        if src and dst and src != dst and not segment.inline[i] and not segment.inline[j]:
            reserved[(src, dst)] = limit - 1
    return reserved


def _producer_counts(segment: Segment) -> dict[tuple[str, str], int]:
    """Per pair: how many nodes produce for a consumer on its destination unit."""
    counts: dict[tuple[str, str], int] = {}
    for node in range(len(segment)):
        unit = segment.units[node]
        if unit is None or segment.inline[node] or segment.boundary[node]:
            continue
        for dst in segment.consumers[node]:
            if dst != unit:
                counts[(unit, dst)] = counts.get((unit, dst), 0) + 1
    return counts


# ---------------------------------------------------------------------------- the search


def variants_for(strategy: str, size: int, enforce: bool = True) -> list[Variant]:
    """The variants to run for a segment of ``size`` nodes.

    Events-first variants differ by pick strategy; speed-first ones rank by time first, so
    only one strategy is run for them. ``strategy="all"`` tries the three strategies on
    segments up to ``SMALL_SEGMENT`` nodes, the default one (min-max-sum) above; naming a
    strategy runs only it. Above ``LARGE_SEGMENT`` nodes only the two variants that win most
    often run (events first, paced and optimistic; speed first, eager and safe). Relaxed
    runs (``enforce=False``) admit every candidate, so safe and optimistic coincide there.
    """
    if strategy != "all":
        strategies = (strategy,)
    else:
        strategies = STRATEGIES if size <= SMALL_SEGMENT else ("min-max-sum",)
    admissions = (False, True) if enforce else (False,)
    found = [Variant(s, False, paced, optimistic) for s in strategies
             for paced in (False, True) for optimistic in admissions]
    found += [Variant(strategies[0], True, paced, optimistic)
              for paced in (False, True) for optimistic in admissions]
    if size > LARGE_SEGMENT:
        keep = {(False, True, True), (True, False, False)}
        found = [v for v in found if (v.speed_first, v.paced, v.optimistic) in keep]
    return found


def schedule_segment(segment: Segment, machine: Machine, strategy: str = "all",
                     objective: str = "fit", guard: bool = True) -> SegmentSchedule:
    """Choose the order of ``segment``: strict variants first, relaxed ones if none fits.

    ``objective="fit"``: the fastest order that fits the event limit, as long as it is no
    slower than the original order (so the pass never costs cycles); otherwise the fastest
    order found. ``"cycles"``: the fastest order, fitting or not (a fitting one wins ties).
    Every order is judged by :func:`evaluate_order`: the flags insert-sync will plan, and
    the cycles they cost. ``guard=False`` drops the "no slower than the original" condition
    (benchmarks use it to measure the best fitting order the heuristic finds).
    """
    original = evaluate_order(segment, list(range(len(segment))), machine)
    if len(segment) < 2 or not any(u is not None for u in segment.units):
        return SegmentSchedule(original, original, strict=True, tried=[original])
    tried = [original] + _run_variants(segment, machine, variants_for(strategy, len(segment)),
                                       enforce=True)
    if objective == "fit":
        fitting = [c for c in tried if c.fits and (c.makespan <= original.makespan or not guard)]
        if fitting:
            best = min(fitting, key=lambda c: (c.makespan, _peak_total(c), c is not original))
            best = local_search(segment, machine, best, _fit_first)
            return SegmentSchedule(best, original, strict=True, tried=tried)
    tried += _run_variants(segment, machine, variants_for(strategy, len(segment), False),
                           enforce=False)
    best = min(tried, key=lambda c: (c.makespan, c.fallbacks, c is not original))
    best = local_search(segment, machine, best, _fastest)
    return SegmentSchedule(best, original, strict=best.fits, tried=tried,
                           fit_found=any(c.fits for c in tried))


def _run_variants(segment: Segment, machine: Machine, variants: list[Variant],
                  enforce: bool) -> list[OrderCost]:
    found, seen = [], set()
    for variant in variants:
        scheduler = EventListScheduler(segment, machine, variant, enforce)
        order = scheduler.run()
        if order is None or tuple(order) in seen:
            continue
        seen.add(tuple(order))
        if segment.carried is None and not any(scheduler.tracker.overflow.values()):
            found.append(evaluate_tracked(segment, scheduler))
        else:
            found.append(evaluate_order(segment, order, machine, variant.name))
    return found


def _peak_total(cost: OrderCost) -> int:
    return sum(cost.peak_events.values())


def _fit_first(cost: OrderCost) -> tuple:
    return (cost.fallbacks, cost.makespan)


def _fastest(cost: OrderCost) -> tuple:
    return (cost.makespan, cost.fallbacks)


def local_search(segment: Segment, machine: Machine, start: OrderCost, rank,
                 evaluations: int = SEARCH_EVALUATIONS) -> OrderCost:
    """Polish an order by moving single nodes within their dependence window.

    First-improvement hill climbing: each unit node in turn is tried at every other
    position between its last predecessor and its first successor, and a move is kept when
    ``rank`` (lower is better) of the exact evaluation improves. At most ``evaluations``
    orders are evaluated; segments above ``SEARCH_SEGMENT`` nodes are returned unchanged.
    """
    if len(segment) > SEARCH_SEGMENT:
        return start
    best, spent, improved = start, 0, True
    while improved and spent < evaluations:
        improved = False
        for node in range(len(segment)):
            if segment.units[node] is None:
                continue
            for order in _moves(segment, best.order, node):
                spent += 1
                cost = evaluate_order(segment, order, machine, best.variant + "+search")
                if rank(cost) < rank(best):
                    best, improved = cost, True
                    break
                if spent >= evaluations:
                    return best
    return best


def _moves(segment: Segment, order: list[int], node: int):
    """Orders with ``node`` moved to another position that keeps its edges forward."""
    position = order.index(node)
    where = {n: k for k, n in enumerate(order)}
    low = max((where[p] for p in segment.preds[node]), default=-1) + 1
    high = min((where[s] for s in segment.succs[node]), default=len(order)) - 1
    rest = order[:position] + order[position + 1:]
    for target in range(low, high + 1):
        if target != position:
            yield rest[:target] + [node] + rest[target:]
