"""Timing for list scheduling on in-order units: priorities, and a replay of a synchronized order.

Ascend-style machines (DESIGN.md §4) issue ops in program order to in-order queues, one per
unit, that run concurrently; a queued op starts when its unit is free and its flags are set.
Given an order and its sync ops (from :mod:`tilesched.schedule.flags`),
:func:`replay_makespan` computes the cycle count by the simulator's rules for straight-line
code in one pass: every flag is set earlier in program order than its wait.

For choosing an order, :class:`Timeline` keeps the earliest start of each ready op (its
unit free, its predecessors done) and :func:`bottom_levels` the classic critical-path
priority: the longest chain of durations from a node to the end (Hu 1961; Graham's list
scheduling). ``remaining_work`` per unit gives the unit-balance priority: an op of the
unit with the most work left should not wait. :class:`ReplayFloor` bounds from below the
cycles any completion of a partial order can take, so a run that cannot beat a known order
stops early.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tilesched.schedule.reorder.segment import Segment

# Entries of a synchronized program for replay_makespan.
OP, SET_FLAG, WAIT_FLAG, BARRIER, PIPE, FENCE = "op", "set", "wait", "barrier_all", "pipe", "fence"


@dataclass
class Replay:
    """The cycles of a replayed order and the most flags of each pair live at one instant."""

    makespan: int
    live_events: dict[str, int]


def replay_makespan(entries: list[tuple], issue_cycles: int = 1,
                    inline_units: frozenset[str] = frozenset()) -> int:
    """Cycles to run ``entries`` in program order on in-order units (see :func:`replay`)."""
    return replay(entries, issue_cycles, inline_units).makespan


def replay(entries: list[tuple], issue_cycles: int = 1,
           inline_units: frozenset[str] = frozenset()) -> Replay:
    """Run ``entries`` in program order on in-order units, by the simulator's rules (§4).

    Entries: ``(OP, unit, duration)``, ``(SET_FLAG, src, dst, event)``,
    ``(WAIT_FLAG, src, dst, event)``, ``(BARRIER,)``, ``(PIPE, unit)`` and ``(FENCE, duration)``
    (a region that runs alone between two ``barrier_all``). Each queued entry costs the issuer
    ``issue_cycles``; an op on an inline unit runs on the issuer. The k-th wait of a flag
    consumes its k-th set. Live events are counted as the simulator does: a flag is live from
    its set to the wait that clears it, and one consumed the instant it is set still counts.
    O(len(entries) + units per barrier + flags log flags).
    """
    issuer = 0
    free: dict[str, int] = defaultdict(int)
    sets: dict[tuple, list[int]] = defaultdict(list)
    waits: dict[tuple, int] = defaultdict(int)
    spans: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for entry in entries:
        kind = entry[0]
        if kind == OP and entry[1] in inline_units:
            issuer = max(issuer, free[entry[1]]) + entry[2]
            free[entry[1]] = issuer
        elif kind in (OP, SET_FLAG, WAIT_FLAG, PIPE):
            unit = entry[2] if kind == WAIT_FLAG else entry[1]
            start = max(issuer, free[unit])
            issuer += issue_cycles
            if kind == OP:
                start += entry[2]
            elif kind == SET_FLAG:
                sets[entry[1:]].append(start)
            elif kind == WAIT_FLAG:
                start = _consume(entry, start, sets, waits, spans)
            free[unit] = start
        elif kind == BARRIER:
            issuer = max([issuer, *free.values()])
        elif kind == FENCE:
            issuer = max([issuer, *free.values()]) + entry[1]
            for unit in free:
                free[unit] = issuer
    return Replay(max([issuer, *free.values()]), {pair: _peak(s) for pair, s in spans.items()})


def _consume(entry: tuple, start: int, sets: dict, waits: dict, spans: dict) -> int:
    """The k-th wait of a flag clears its k-th set: when it happens, and the live span."""
    flag = entry[1:]
    k = waits[flag]
    waits[flag] = k + 1
    if k >= len(sets[flag]):
        return start  # no matching set earlier in program order: not a valid plan
    set_time = sets[flag][k]
    cleared = max(start, set_time)
    pair = f"{entry[1]}->{entry[2]}"
    spans[pair].append((set_time, 1, 1))
    spans[pair].append((cleared, 2 if cleared == set_time else 0, -1))
    return cleared


def _peak(spans: list[tuple[int, int, int]]) -> int:
    """Most spans live at once: clears of earlier sets, then sets, then instant clears."""
    live = best = 0
    for _, _, delta in sorted(spans):
        live += delta
        best = max(best, live)
    return best


def bottom_levels(segment: Segment) -> list[int]:
    """Longest duration-weighted path from each node to the end of the segment (inclusive)."""
    n = len(segment)
    level = [0] * n
    for i in range(n - 1, -1, -1):
        tail = max((level[j] for j in segment.succs[i]), default=0)
        level[i] = segment.durations[i] + tail
    return level


def remaining_work(segment: Segment) -> dict[str | None, int]:
    """Total duration per unit: the starting point of the unit-balance priority."""
    work: dict[str | None, int] = defaultdict(int)
    for unit, duration in zip(segment.units, segment.durations, strict=True):
        work[unit] += duration
    return work


class Timeline:
    """Earliest starts while an order is being built: units in order, predecessors first.

    A boundary control node runs alone (everything before it finishes first, everything
    after starts when it ends), as the ``barrier_all`` insert-sync puts around it.
    """

    def __init__(self, segment: Segment) -> None:
        self.segment = segment
        self.free: dict[str | None, int] = defaultdict(int)
        self.finish = [0] * len(segment)
        self.ready = [-1] * len(segment)  # cached: the latest finish of a node's predecessors
        self.floor = 0  # nothing starts before the end of the last boundary

    def earliest_start(self, i: int) -> int:
        """When node ``i`` could start if it were issued next (its predecessors are placed)."""
        segment = self.segment
        ready = self.ready[i]
        if ready < 0:
            ready = self.ready[i] = max((self.finish[p] for p in segment.preds[i]), default=0)
        if segment.boundary[i]:
            return max(ready, self.floor, *self.free.values())
        unit_free = self.free[segment.units[i]] if segment.units[i] is not None else 0
        return max(ready, unit_free, self.floor)

    def place(self, i: int) -> None:
        """Issue node ``i`` now."""
        start = self.earliest_start(i)
        end = start + self.segment.durations[i]
        self.finish[i] = end
        if self.segment.boundary[i]:
            self.floor = end
        elif self.segment.units[i] is not None:
            self.free[self.segment.units[i]] = end


class ReplayFloor:
    """A lower bound on the replayed cycles of every completion of an order being built.

    It replays the order so far by :func:`replay`'s rules without the sync entries, except
    that an op starts no earlier than the end of each memory dependence it has: any correct
    synchronization makes it wait for those (flags, a drain, issue order), and every entry
    the real plan adds only delays what follows. What the order still has to run on a unit
    starts after what the unit has run so far, so ``free + remaining work`` of each unit
    bounds the final cycle count. Valid for straight-line pieces and loop bodies alike (the
    first iteration is a prefix of the replay).
    """

    def __init__(self, segment: Segment, issue_cycles: int, inline_units: frozenset[str]) -> None:
        self.segment = segment
        self.issue_cycles = issue_cycles
        self.inline_units = inline_units
        self.issuer = 0
        self.free: dict[str, int] = defaultdict(int)
        self.finish = [0] * len(segment)
        self.left: dict[str, int] = defaultdict(int)  # work of each unit not yet placed
        for node, unit in enumerate(segment.units):
            if unit is not None and not segment.boundary[node]:
                self.left[unit] += segment.durations[node]
                self.free[unit] = 0
        # each unit's free + left and the issuer only grow: their maximum is kept as they change
        self.floor = max(self.left.values(), default=0)

    def place(self, node: int) -> None:
        """Append ``node`` to the order."""
        segment, unit = self.segment, self.segment.units[node]
        duration = segment.durations[node]
        if segment.boundary[node]:  # a fence: runs alone
            self.issuer = max([self.issuer, *self.free.values()]) + duration
            for other in self.free:
                self.free[other] = self.issuer
            self.finish[node] = self.issuer
            self.floor = max([self.floor, self.issuer,
                              *(self.issuer + left for left in self.left.values())])
            return
        if unit is None:
            return
        finish, inline = self.finish, self.inline_units
        # a producer marked inline whose unit the replay queues is ordered by issue order alone
        # (the flag plan adds nothing for it), so the replay need not wait for its end
        start = max((finish[p] for p in segment.dep_preds[node]
                     if not segment.inline[p] or segment.units[p] in inline), default=0)
        if unit in self.inline_units:
            self.issuer = max(self.issuer, self.free[unit], start) + duration
            end = self.issuer
        else:
            end = max(self.issuer, self.free[unit], start) + duration
            self.issuer += self.issue_cycles
        self.free[unit] = finish[node] = end
        self.left[unit] -= duration
        self.floor = max(self.floor, self.issuer, end + self.left[unit])

    def bound(self) -> int:
        """No completion of the order so far replays in fewer cycles than this."""
        return self.floor
