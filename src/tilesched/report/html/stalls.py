"""Stall attribution: where each issuer's and unit's cycles went.

Every cycle of ``[0, cycles)`` of one timeline row is counted once, in the first category that
covers it: *busy* (a tile op runs; overlapping ops of a pipelined unit count once), waiting on a
*flag* (a ``wait_flag`` blocked), on a *group* (``wait_group``), at a *barrier* (``barrier``,
``cond_barrier``, ``barrier_all``, ``pipe_barrier``, a ``set_flag`` draining a pipelined unit),
else *idle* (nothing to do: the queue was empty, or the issuer had finished).
"""

from __future__ import annotations

from tilesched.report.html.events import WAIT_FLAG, WAIT_GROUP, EventTable

CATEGORIES = ("busy", "flag", "group", "barrier", "idle")


def stall_category(table: EventTable, e: int) -> str:
    """The category of the cycles event ``e`` covers."""
    if not table.sync[e]:
        return "busy"
    name = table.name(e)
    if name == WAIT_FLAG:
        return "flag"
    if name == WAIT_GROUP:
        return "group"
    return "barrier"


def stall_attribution(table: EventTable, cycles: int) -> list[dict[str, int]]:
    """Per row (agent): cycles in each of :data:`CATEGORIES`, summing to ``cycles``."""
    out = []
    for row in table.by_row:
        spans: dict[str, list[tuple[int, int]]] = {c: [] for c in CATEGORIES[:-1]}
        starts, ends = table.start, table.end
        overlapping, reach = False, 0
        for e in row:  # execution order: starts never decrease
            if ends[e] > starts[e]:
                spans[stall_category(table, e)].append((starts[e], ends[e]))
                overlapping = overlapping or starts[e] < reach
                reach = max(reach, ends[e])
        if not overlapping:  # one op at a time (every unit but a pipelined one)
            totals = {c: sum(hi - lo for lo, hi in spans[c]) for c in CATEGORIES[:-1]}
            totals["idle"] = max(0, cycles - sum(totals.values()))
            out.append(totals)
            continue
        counted: list[tuple[int, int]] = []
        totals = {}
        for category in CATEGORIES[:-1]:
            merged = _union(spans[category])
            totals[category] = _length(merged) - _overlap(merged, counted)
            counted = _union(counted + merged)
        totals["idle"] = max(0, cycles - sum(totals.values()))
        out.append(totals)
    return out


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted disjoint intervals covering the same cycles."""
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(hi - lo for lo, hi in spans)


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Cycles covered by both sorted disjoint interval lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total
