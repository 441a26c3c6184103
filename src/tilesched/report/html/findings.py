"""Races, deadlock and violations of a run, tied to the timeline events they are about.

The simulator reports a race once per (buffer, pair of source locations), naming each side's op,
``file:line:col`` and unit (``sim/engine/happens_before.py``); in an unrolled loop each side is several
executed ops. The report highlights every executed instance of both sides and, when a race is
selected, zooms to the earliest instance of the second side and the latest instance of the first
side that started before it ends (the pair the detector saw first is one such pair).
"""

from __future__ import annotations

import re

from tilesched.report.html.events import EventTable
from tilesched.sim.result import SimResult

_LOC = re.compile(r"^(.+?:\d+:\d+): ")


def unit_label(table: EventTable, e: int, n_issuers: int) -> str:
    """Where event ``e`` ran, as the race detector names it (``unit`` or ``unit@group``)."""
    agent = table.agent[e]
    name = table.rows[agent]
    if agent >= n_issuers:
        return name
    unit = table.op_table[table.op[e]].unit or name
    return f"{unit}@{name}" if n_issuers > 1 else unit


def findings(result: SimResult, table: EventTable, n_issuers: int) -> dict:
    """``{races, deadlock, violations}`` for the page, races with their event instances."""
    instances: dict[tuple[str, str], list[int]] = {}
    for e in range(len(table)):
        if not table.sync[e]:
            instances.setdefault((table.loc(e), unit_label(table, e, n_issuers)), []).append(e)
    races = []
    for race in result.races:
        first = instances.get((race.first.loc, race.first.unit), [])
        second = instances.get((race.second.loc, race.second.unit), [])
        races.append({
            "buffer": race.buffer, "count": race.count,
            "first": race.first.to_json() | {"events": first},
            "second": race.second.to_json() | {"events": second},
            "focus": _focus_pair(table, first, second),
        })
    deadlock = None
    if result.deadlock is not None:
        deadlock = [b.to_json() | {"row": _row_of(table, b.agent)} for b in result.deadlock]
    violations = [v.to_json() | {"loc": _leading_loc(v.detail)} for v in result.violations]
    return {"races": races, "deadlock": deadlock, "violations": violations}


def _focus_pair(table: EventTable, first: list[int], second: list[int]) -> list[int]:
    """One racing instance of each side to zoom to (see the module docstring)."""
    if not first or not second:
        return first[:1] + second[:1]
    b = min(second, key=table.start.__getitem__)
    before = [a for a in first if table.start[a] < table.end[b]] or first
    a = max(before, key=table.start.__getitem__)
    return [a, b]


def _row_of(table: EventTable, agent: str) -> int:
    return table.rows.index(agent) if agent in table.rows else -1


def _leading_loc(detail: str) -> str | None:
    """The ``file:line:col`` a violation's text starts with, if any."""
    match = _LOC.match(detail)
    return match.group(1) if match else None
