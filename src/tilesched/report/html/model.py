"""The data one report page embeds: runs (events, edges, counters, stalls, findings) and listings.

Everything the page shows comes from here as plain JSON; the page's script only draws it. Events
are renumbered so that each timeline row's events are contiguous and ordered by start (the page
binary-searches them), and repeated strings (op names, locations, operand texts) go through one
string table, which keeps a 100k-op report a few MB.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilesched.report.html.counters import counter_tracks
from tilesched.report.html.events import (
    EventTable,
    build_events,
    describe_operands,
    describe_sync,
)
from tilesched.report.html.findings import findings
from tilesched.report.html.stalls import CATEGORIES, stall_attribution
from tilesched.sim.result import SimResult
from tilesched.sim.trace import Trace


@dataclass
class RunInput:
    """One simulated program to show: its label, trace, recorded result and location mapping."""

    label: str
    trace: Trace
    result: SimResult
    listing: int  # index of the listing its locations point into
    origins: dict[str, str] | None = None  # loc -> where the op was written in the input


class Strings:
    """A string table: each distinct string once, events refer to it by index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[str] = []

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found

    def many(self, texts: list[str]) -> list[int]:
        """Indices of many strings (one dictionary lookup each)."""
        index, get = self.index, self.index.get
        out = []
        for text in texts:
            found = get(text)
            if found is None:
                found = index[text] = len(self.items)
                self.items.append(text)
            out.append(found)
        return out


def run_data(run: RunInput, strings: Strings) -> dict:
    """The JSON object of one run."""
    result, trace = run.result, run.trace
    if result.timeline is None:
        raise ValueError("the report needs a simulation run with record=True")
    table = build_events(result.timeline, trace.machine)
    order, row_start = _row_order(table)
    rank = [0] * len(order)
    for new, old in enumerate(order):
        rank[old] = new
    stalls = stall_attribution(table, result.cycles)
    return {
        "label": run.label,
        "listing": run.listing,
        "summary": _summary(result),
        "rows": _rows(table, result, stalls),
        "rowStart": row_start,
        "ev": _event_columns(table, order, rank, trace, strings, run.origins),
        "edges": _edges(table, rank),
        "critical": [rank[e] for e in table.critical_path()],
        "counters": counter_tracks(result.timeline, table, trace.machine.event_limit),
        "findings": _renumber_findings(findings(result, table, len(trace.machine.issuers)), rank),
        "stallCategories": list(CATEGORIES),
    }


def _row_order(table: EventTable) -> tuple[list[int], list[int]]:
    """Events grouped by row, each row by start (then execution order); row offsets."""
    order, row_start = [], [0]
    for events in table.by_row:
        order += sorted(events, key=table.start.__getitem__)  # stable: keeps execution order
        row_start.append(len(order))
    return order, row_start


def _summary(result: SimResult) -> dict:
    return {
        "target": result.machine,
        "cycles": result.cycles,
        "timeUs": None if result.time_us is None else round(result.time_us, 4),
        "frequencyHz": result.frequency_hz,
        "bound": result.bound,
        "boundReason": result.bound_reason,
        "ratio": None if result.ratio is None else round(result.ratio, 4),
        "tileOps": result.ops_executed,
        "syncOps": result.sync_ops,
        "races": len(result.races),
        "deadlock": result.deadlock is not None,
        "violations": sum(v.count for v in result.violations),
        "peakLiveEvents": result.peak_live_events,
        "ok": result.ok,
        "units": result.units,
    }


def _rows(table: EventTable, result: SimResult, stalls: list[dict]) -> list[dict]:
    rows = []
    for a, name in enumerate(table.rows):
        busy = stalls[a]["busy"]
        rows.append({"name": name, "kind": table.row_kinds[a], "stalls": stalls[a],
                     "utilization": round(busy / result.cycles, 4) if result.cycles else 0.0})
    return rows


def _event_columns(table: EventTable, order: list[int], rank: list[int], trace: Trace,
                   strings: Strings, origins: dict[str, str] | None) -> dict:
    """Parallel arrays, one entry per event in row order (see the module docstring)."""
    ops = [table.op_table[table.op[e]] for e in order]
    dep = table.dep
    cols = {
        "row": [table.agent[e] for e in order],
        "s": [table.start[e] for e in order],
        "e": [table.end[e] for e in order],
        "name": strings.many([op.name for op in ops]),
        "loc": strings.many([op.loc for op in ops]),
        "args": strings.many(_operand_texts(table, order, ops, trace.buffers)),
        "dep": [rank[dep[e]] if dep[e] >= 0 else -1 for e in order],
        "dk": strings.many([table.dep_kind[e] for e in order]),
        "crit": [1 if table.critical[e] else 0 for e in order],
    }
    if origins is not None:
        found = [origins.get(op.loc) for op in ops]
        cols["origin"] = [-1 if o is None else strings(o) for o in found]
    return cols


def _operand_texts(table: EventTable, order: list[int], ops: list, buffers) -> list[str]:
    """What each event's op works on (operands of tile ops, properties of sync ops)."""
    cache: dict = {}
    texts = []
    for e, op in zip(order, ops, strict=True):
        if e in table.barrier_index:
            texts.append(f"{describe_sync(op)} #{table.barrier_index[e] + 1}".strip())
            continue
        # unrolled instances of one op share its properties dict; tile ops differ by operands
        key = (op.name, op.operands) if not op.is_sync else (op.name, id(op.props))
        text = cache.get(key)
        if text is None:
            text = cache[key] = describe_sync(op) if op.is_sync else describe_operands(op, buffers)
        texts.append(text)
    return texts


def _edges(table: EventTable, rank: list[int]) -> dict:
    edges = sorted((rank[s], rank[t], k) for s, t, k in table.edges)
    return {"from": [s for s, _, _ in edges], "to": [t for _, t, _ in edges],
            "kind": [k for _, _, k in edges]}


def _renumber_findings(found: dict, rank: list[int]) -> dict:
    for race in found["races"]:
        for side in ("first", "second"):
            race[side]["events"] = sorted(rank[e] for e in race[side]["events"])
        race["focus"] = [rank[e] for e in race["focus"]]
    return found
