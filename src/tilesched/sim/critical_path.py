"""The machine's lower bound for a trace (DESIGN.md §5 ``bound``).

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
"""

from __future__ import annotations

from tilesched.sim.program import ENQ, INLINE, TILE, Program
from tilesched.sim.trace import region_intersection


def lower_bound(p: Program) -> tuple[int, str]:
    """``(bound, reason)``: the larger of the busiest unit's work and the critical path."""
    unit_name, unit_work = busiest_unit(p)
    path = max((critical_path(code) for code in p.code), default=0)
    if unit_work >= path:
        return unit_work, f"unit {unit_name} busy {unit_work} cycles"
    return path, f"read-after-write chain of {path} cycles"


def busiest_unit(p: Program) -> tuple[str, int]:
    """The non-pipelined unit instance (or shared inline unit) with the most op time."""
    work: dict[str, int] = {}
    for code in p.code:
        for ins in code:
            if ins[0] == ENQ and ins[2][0] == TILE:
                agent = p.agents[ins[1]]
                if not agent.pipelined:
                    work[agent.name] = work.get(agent.name, 0) + ins[2][1]
            elif ins[0] == INLINE:
                name = p.inline_units[ins[1]]
                work[name] = work.get(name, 0) + ins[2][1]
    if not work:
        return "-", 0
    name = max(work, key=work.get)
    return name, work[name]


def critical_path(code: list[tuple]) -> int:
    """Longest RAW chain (sum of durations) through one issuer's tile ops in program order."""
    writers: dict[int, list] = {}  # buffer -> [{region: finish} oldest first, pairwise disjoint]
    longest = 0
    for ins in code:
        if ins[0] != ENQ and ins[0] != INLINE:
            continue
        item = ins[2]
        if item[0] != TILE:
            continue
        start = 0
        for buf, region, write, _ in item[3]:
            if not write:
                entry = writers.get(buf)
                if entry:
                    entries, disjoint = entry
                    ready = entries.get(region) if disjoint else None
                    if ready is None:
                        ready = _ready(entries, region)
                    if ready > start:
                        start = ready
        finish = start + item[1]
        for buf, region, write, _ in item[3]:
            if write:
                _record_write(writers, buf, region, finish)
        if finish > longest:
            longest = finish
    return longest


def _record_write(writers: dict[int, list], buf: int, region, finish: int) -> None:
    """Make ``region`` the newest write of ``buf``, dropping older writes it covers.

    While a buffer's written regions are pairwise disjoint (slots, tiles), a read of exactly
    one of them depends on that write alone, which :func:`critical_path` uses as a fast path.
    """
    entry = writers.get(buf)
    if entry is None:
        writers[buf] = [{region: finish}, True]
        return
    entries = entry[0]
    if region in entries and entry[1]:
        del entries[region]  # disjoint from every other entry: nothing else is covered
        entries[region] = finish
        return
    entries.pop(region, None)
    for other in [r for r in entries if _contains(region, r)]:
        del entries[other]
    if entry[1]:
        entry[1] = not any(_overlap(region, r) for r in entries)
    entries[region] = finish


def _ready(entries: dict, region) -> int:
    """Latest finish among the writers a read of ``region`` depends on (newest first)."""
    ready = 0
    newer: list = []
    for written, finish in reversed(entries.items()):
        if not _overlap(written, region):
            continue
        if _contains(written, region):
            return max(ready, finish)
        common = region_intersection(written, region)
        if not any(_contains(n, common) for n in newer):
            ready = max(ready, finish)
        newer.append(written)
    return ready


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
