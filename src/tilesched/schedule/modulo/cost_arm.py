"""The ``cost`` placement arm: a look-ahead search over one recurrence group's seats.

The op with the fewest legal seats goes first (as DSatur colours graphs; Brélaz, CACM 22(4),
1979); its seats are ranked lexicographically by one step of look-ahead (a seat that leaves
another op of the group without any is illegal; then fewer ops left with a single seat), table
pressure and distance from ASAP. The search backtracks chronologically within a budget and
restarts a few times with seeded tie-break orders. The source document's cost-based arm:
resource legality is a hard gate; pressure and structural distance rank the legal seats.
"""

from __future__ import annotations

import itertools
import random

from tilesched.schedule.modulo.placer import Placer

COST_SEATS = 8  # seats the cost arm branches on per op (best ranked first)
COST_BUDGET = 8  # seatings per op and restart the cost arm may spend
COST_RESTARTS = 4  # the first run uses the priority order; the others seeded permutations


def arm_cost(placer: Placer, gi: int, order: list[int]) -> bool:
    """Seat group ``gi`` by the look-ahead search, ``order`` breaking ties; on failure
    ``placer.failure`` describes the deepest dead end.

    At most ``COST_RESTARTS * COST_BUDGET * k`` seatings, each ranking up to
    :data:`COST_SEATS` seats with O(k) look-ahead: O(k^2) per seating.
    """
    members = placer.groups[gi].members
    order = list(order)
    deepest: list = [-1, None]
    for restart in range(COST_RESTARTS):
        if restart:
            random.Random(restart * 1_000_003 + placer.ii).shuffle(order)
        rank = {v: r for r, v in enumerate(order)}
        if _search(placer, gi, rank, COST_BUDGET * len(members), deepest):
            return True
        placer.clear_group(gi)
    placer.failure = deepest[1]
    return False


def _search(placer: Placer, gi: int, rank: dict[int, int], budget: int, deepest: list) -> bool:
    """Depth-first search over seats with chronological backtracking, ``budget`` seatings."""
    members = placer.groups[gi].members
    bounds: dict = {v: (None, None) for v in members}
    left = set(members)
    frames: list[tuple[int, list[int], int, dict]] = []
    while left:
        v, seats = _choice(placer, gi, left, bounds, rank)
        frames.append((v, seats, -1, bounds))
        while True:
            v, seats, i, saved = frames.pop()
            if i >= 0:
                placer.unseat(v)
                left.add(v)
            bounds, i = saved, i + 1
            if i < len(seats):
                budget -= 1
                if budget < 0:
                    if deepest[1] is None:
                        deepest[:] = [len(frames), placer.describe_failure(
                            v, *saved[v], "cost", note="search budget exhausted")]
                    return False
                frames.append((v, seats, i, saved))
                bounds = _apply(placer, gi, v, seats[i], left, bounds)
                break
            if len(frames) > deepest[0]:
                note = ("every legal seat leaves another op of its recurrence without one"
                        if placer.legal_count(v, *saved[v]) else "")
                deepest[:] = [len(frames), placer.describe_failure(v, *saved[v], "cost", note)]
            if not frames:
                return False
    return True


def _choice(placer: Placer, gi: int, left: set[int], bounds: dict,
            rank: dict) -> tuple[int, list[int]]:
    """The op with the fewest legal seats, and its :data:`COST_SEATS` seats nearest its ASAP
    time ranked by :func:`_seat_cost`."""
    v = min(left, key=lambda u: (placer.legal_count(u, *bounds[u]), rank[u]))
    seats = list(itertools.islice(placer.legal_seats(v, *bounds[v]), COST_SEATS))
    cost = {t: _seat_cost(placer, gi, v, t, left, bounds) for t in seats}
    return v, sorted((t for t in cost if cost[t][0] == 0), key=cost.__getitem__)


def _seat_cost(placer: Placer, gi: int, v: int, t: int, left: set[int], bounds: dict) -> tuple:
    """Lexicographic cost of seating ``v`` at ``t``: ops of the group left without a seat
    (one step of look-ahead), ops left with one seat, table pressure, distance from ASAP."""
    dmat, i = placer.dmat[gi], placer.pos[v]
    placer.seat(v, t)
    wipeouts = scarce = 0
    for u in left:
        if u == v:
            continue
        j = placer.pos[u]
        lo, hi = t + dmat[i][j], t - dmat[j][i]
        if bounds[u][0] is not None:
            lo, hi = max(lo, bounds[u][0]), min(hi, bounds[u][1])
        free = placer.legal_count(u, lo, hi)
        wipeouts += free == 0
        scarce += free == 1
    placer.unseat(v)
    pressure = placer.table.pressure(placer.footprints[v], t)
    return (wipeouts, scarce, pressure, abs(t - placer.asap[v]))


def _apply(placer: Placer, gi: int, v: int, t: int, left: set[int], bounds: dict) -> dict:
    """Seat ``v`` at ``t``; return the windows of the ops still ``left``, narrowed. O(k)."""
    placer.seat(v, t)
    left.discard(v)
    dmat, i = placer.dmat[gi], placer.pos[v]
    narrowed = {}
    for u in left:
        j = placer.pos[u]
        lo, hi = t + dmat[i][j], t - dmat[j][i]
        if bounds[u][0] is not None:
            lo, hi = max(lo, bounds[u][0]), min(hi, bounds[u][1])
        narrowed[u] = (lo, hi)
    return narrowed
