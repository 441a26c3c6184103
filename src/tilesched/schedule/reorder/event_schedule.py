"""Event-aware list scheduling of a block's children (the core of ``reorder-events``).

A Kahn-style list scheduler (Kahn 1962; the source document's OutOfOrderScheduler) builds
the order one node at a time from the ready set, and keeps the *flag pressure* of every
directed unit pair within the target's event limit. The event model is the one insert-sync
allocates with (:class:`tilesched.schedule.flags.FlagTracker`): one flag per producer
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

A :class:`Variant` fixes the key (events first or speed first), the pacing of flag use
(*paced*: wait to cover a group of producers with one flag; eager) and the admission rule
(*safe* pressure bound, or *optimistic*: refuse only what cannot get an id now);
:mod:`tilesched.schedule.reorder.search` runs several and keeps the best order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from math import ceil

from tilesched.schedule.flags import FlagTracker, Item
from tilesched.schedule.reorder.list_schedule import (
    ReplayFloor,
    Timeline,
    bottom_levels,
    remaining_work,
)
from tilesched.schedule.reorder.order_cost import Machine
from tilesched.schedule.reorder.segment import Segment

STRATEGIES = ("min-max-sum", "min-sum-max", "min-max")
CANDIDATES_PER_UNIT = 2   # ready nodes ranked per unit (by index, by critical path)


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
    candidate is forbidden, or when the order so far cannot replay in ``give_up_above``
    cycles or fewer (:class:`ReplayFloor`: a known order is faster whatever comes next). Candidates per step: a few ready nodes per unit by index and by
    critical path, plus the ready consumers of each pair's latest pending producer (the
    consumer whose single wait covers every pending producer of the pair).
    """

    def __init__(self, segment: Segment, machine: Machine, variant: Variant,
                 enforce: bool = True, give_up_above: int | None = None) -> None:
        self.segment = segment
        self.machine = machine
        self.variant = variant
        self.enforce = enforce
        self.reserved = reserved_pairs(segment, machine.limit)
        self.tracker = FlagTracker(machine.limit, machine.pipelined, self.reserved)
        self.timeline = Timeline(segment)
        self.give_up_above = give_up_above
        self.floor = None if give_up_above is None else \
            ReplayFloor(segment, machine.issue_cycles, machine.inline_units)
        self.levels = bottom_levels(segment)
        self.work = remaining_work(segment)
        self.order: list[int] = []
        self.position: dict[int, int] = {}
        self.producers: dict[int, list[int]] = {}  # ready node -> latest producer per unit
        self.flags: dict[int, tuple] = {}  # ready node -> (knowledge stamp, flags_needed)
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
            if self.floor is not None:
                self.floor.place(node)
                if self.floor.bound() > self.give_up_above:
                    return None
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
        for pair, position in self.tracker.pending_pairs():
            queue = self.ready.get(pair[1])
            if queue is None:
                continue
            found.update(c for c in self.segment.dep_succs[self.order[position]]
                         if c in queue.members)
        if not found and self.control_ready:
            found.add(self.control_ready[0])
        return sorted(found)

    # -------------------------------------------------------------- choosing

    def _pick(self) -> int | None:
        """The candidate with the lowest key. Keys start with a cheap prefix (pacing, and for
        speed-first variants the speed terms), so candidates are keyed in prefix order and
        the rest are skipped once a valid key's prefix beats theirs: the same minimum."""
        current = self.tracker.pressure()
        best, best_key = None, None
        for prefix, node, needed in sorted(self._prefix(node) for node in self._candidates()):
            if best_key is not None and prefix > best_key[:len(prefix)]:
                break
            key = self._key(node, current, prefix, needed)
            if key is not None and (best_key is None or key < best_key):
                best, best_key = node, key
        return best

    def _prefix(self, node: int) -> tuple[tuple, int, list[int] | None]:
        """``(prefix of the key, node, flags_needed)``: what ranks ``node`` before the flag
        pressure is previewed (see :meth:`_key`)."""
        segment = self.segment
        if segment.boundary[node]:
            needed = flags = []
        else:
            needed = self._flags_needed(node)
            flags = needed or []
        premature = self.variant.paced and self._premature(node, flags)
        if self.variant.speed_first:
            return (premature, self._speed(node)), node, needed
        return (premature,), node, needed

    def _flags_needed(self, node: int) -> list[int] | None:
        """:meth:`FlagTracker.flags_needed` of a ready node, kept while its unit learns nothing
        (its producers are fixed once it is ready)."""
        item = self.segment.items[node]
        stamp = self.tracker.knowledge_stamp(item.unit)
        known = self.flags.get(node)
        if known is None or known[0] != stamp:
            known = self.flags[node] = (stamp, self.tracker.flags_needed(item,
                                                                         self.producers[node]))
        return known[1]

    def _speed(self, node: int) -> tuple[int, int, int]:
        """Earliest start on its unit, longest path to the end, the unit's remaining work."""
        return (self.timeline.earliest_start(node), -self.levels[node],
                -self.work[self.segment.units[node]])

    def _key(self, node: int, current: dict, prefix: tuple, needed: list[int] | None
             ) -> tuple | None:
        """The ranking key of ``node`` (lower is better), or None if strict mode forbids it.
        ``prefix`` and ``needed`` come from :meth:`_prefix`."""
        segment, tracker = self.segment, self.tracker
        item = segment.items[node]
        producers = self.producers[node]
        if segment.boundary[node]:
            changed = {pair: int(pair in self.reserved) for pair in current}
        else:
            changed = tracker.preview(item, producers, segment.consumers[node], needed)
        if self.enforce and self._forbidden(node, item, producers, changed, needed):
            return None
        releases = any(v < current.get(pair, 0) for pair, v in changed.items())
        if len(changed) == len(current):
            after = changed
        else:
            after = dict(current)
            after.update(changed)
        events = _strategy_key(self.variant.strategy, after)
        if self.variant.speed_first:
            return (*prefix, events, node)
        return (*prefix, not releases, events, self._speed(node), node)

    def _forbidden(self, node: int, item, producers: list[int], changed: dict,
                   needed: list[int] | None) -> bool:
        """Strict mode: a *safe* variant keeps every pair's pressure within the limit (no
        dead end is then possible); an *optimistic* one only refuses a candidate whose own
        flags would find no free id now (it may run into a dead end, and then fails)."""
        if self.variant.optimistic:
            return not self.segment.boundary[node] and self.tracker.overflows(item, producers,
                                                                              needed)
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
            held, pending = self.tracker.state(pair)
            budget = self.machine.limit - held - (pair in self.reserved)
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
            self.tracker.add(segment.items[node], self.producers.pop(node), segment.consumers[node])
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


def reserved_pairs(segment: Segment, limit: int) -> dict[tuple[str, str], int]:
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
