"""Rau's iterative modulo scheduling (IMS) on the whole graph: the fallback after the arms.

Rau, "Iterative Modulo Scheduling", HP Labs HPL-94-115, 1994: HeightR priority; the earliest
start from the scheduled predecessors (CalculateEarlyStart); the first conflict-free slot in
``[Estart, Estart + II)`` (FindTimeSlot), else Estart or one past the previous slot with
eviction of the conflicting ops; successors whose dependence breaks are evicted. A budget of
``budget_ratio`` steps per node bounds the work: O(budget * (degree + II)).
"""

from __future__ import annotations

import heapq
from collections import Counter

from tilesched.schedule.modulo.placer import Placer

IMS = "ims"


def iterative_modulo_schedule(placer: Placer) -> bool:
    """Rau's IMS; on success ``placer.time`` holds every capacity user (arm ``ims``)."""
    placer.reset()
    cg = placer.cg
    rank = [0] * cg.n
    for r, v in enumerate(sorted(range(cg.n), key=lambda v: (-placer.height[v],
                                                             placer.asap[v], v))):
        rank[v] = r
    start: list[int | None] = [None] * cg.n
    previous: list[int | None] = [None] * cg.n
    heap = [(rank[v], v) for v in range(cg.n)]
    heapq.heapify(heap)
    budget = int(placer.budget_ratio * cg.n) + 1
    evictions: Counter = Counter()
    while heap:
        _, v = heapq.heappop(heap)
        if start[v] is not None:
            continue
        if budget == 0:
            _failure(placer, v, start, evictions)
            return False
        budget -= 1
        t = _slot(placer, v, start, previous[v])
        for u in _evict(placer, v, t, start, rank):
            evictions[u] += 1
            heapq.heappush(heap, (rank[u], u))
        if cg.usage[v]:
            placer.seat(v, t)
            placer.arm[v] = IMS
        start[v] = previous[v] = t
    return True


def _estart(placer: Placer, v: int, start: list[int | None]) -> int:
    """Earliest start allowed by the scheduled predecessors (Rau's CalculateEarlyStart)."""
    ii = placer.ii
    return max((start[u] + sep - ii * d for u, sep, d in placer.cg.pred[v]
                if start[u] is not None), default=0)


def _slot(placer: Placer, v: int, start: list[int | None], previous: int | None) -> int:
    """Rau's FindTimeSlot."""
    estart = _estart(placer, v, start)
    if not placer.cg.usage[v]:
        return estart
    t = placer.first_fit_from(v, estart)
    if t is not None:
        return t
    return estart if previous is None or estart > previous else previous + 1


def _evict(placer: Placer, v: int, t: int, start: list[int | None], rank: list[int]) -> list[int]:
    """Unschedule the ops that conflict with ``v`` at ``t`` (resources, then successors)."""
    evicted = []
    cg, table, footprint = placer.cg, placer.table, placer.footprints[v]
    while cg.usage[v] and not table.probe(footprint, t):
        occupants = set(table.conflicts(footprint, t, limit=1)[0].occupants)
        victim = max(occupants, key=lambda u: (rank[u], u))
        placer.unseat(victim)
        start[victim] = None
        evicted.append(victim)
    for w, sep, d in cg.succ[v]:
        if w != v and start[w] is not None and start[w] < t + sep - placer.ii * d:
            if cg.usage[w]:
                placer.unseat(w)
            start[w] = None
            evicted.append(w)
    return evicted


def _failure(placer: Placer, v: int, start: list[int | None], evictions: Counter) -> None:
    """Record the IMS budget exhaustion as the placer's failure."""
    estart = _estart(placer, v, start)
    worst = max(evictions, key=lambda u: (evictions[u], -u), default=v)
    placer.failure = placer.describe_failure(
        v, estart, estart + placer.ii - 1, IMS,
        note=f"IMS budget exhausted; {placer.cg.ids[worst]} was evicted "
             f"{evictions[worst]} times")
