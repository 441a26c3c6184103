"""Chrome trace-event JSON of a simulation (``tilesched sim --trace OUT.json``).

Open the file in Perfetto (ui.perfetto.dev) or chrome://tracing. One track (thread) per issuer and
unit instance; one simulated cycle is shown as one microsecond. Tile ops are complete events
(``ph: X``) with their source location; stalls of sync ops are ``sync`` slices; each flag set ->
wait pair and each barrier rendezvous is drawn as flow arrows (``ph: s`` / ``f``) between
zero-length marker slices on the tracks involved.
"""

from __future__ import annotations

import json

from tilesched.output_files import open_output
from tilesched.sim.result import SimResult

PID = 1


def chrome_trace(result: SimResult) -> dict:
    """The trace-event object; the result must come from a recording run (``record=True``)."""
    timeline = result.timeline
    if timeline is None:
        raise ValueError("chrome_trace needs a simulation run with record=True")
    events = _metadata(result.machine, timeline.agents)
    for agent, start, end, op_index in timeline.ops:
        op = timeline.op_table[op_index]
        events.append(_slice(op.name.removeprefix("tile."), "tile", agent, start, end - start,
                             {"loc": op.loc, "op": op.name}))
    for agent, start, end, op_index in timeline.stalls:
        op = timeline.op_table[op_index]
        events.append(_slice(op.name.removeprefix("sync."), "sync", agent, start, end - start,
                             {"loc": op.loc, "stalled": end - start}))
    flow = _FlowIds()
    events += _flag_flows(timeline, flow)
    events += _barrier_flows(timeline, flow)
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"tool": "tilesched sim", "target": result.machine,
                          "cycles": result.cycles, "time_unit": "1 us = 1 cycle"}}


def write_chrome_trace(result: SimResult, path: str) -> None:
    """Write :func:`chrome_trace` to ``path`` (atomically; an OSError is a located exit 2)."""
    with open_output(path) as out:
        json.dump(chrome_trace(result), out)


def _metadata(machine: str, agents: list[str]) -> list[dict]:
    """Process and thread names, tracks sorted like the agents."""
    events = [{"ph": "M", "name": "process_name", "pid": PID, "args": {"name": f"tilesched {machine}"}}]
    for tid, name in enumerate(agents):
        events.append({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid, "args": {"name": name}})
        events.append({"ph": "M", "name": "thread_sort_index", "pid": PID, "tid": tid,
                       "args": {"sort_index": tid}})
    return events


def _slice(name: str, cat: str, tid: int, ts, dur, args: dict) -> dict:
    """A complete event (``ph: X``)."""
    return {"ph": "X", "name": name, "cat": cat, "pid": PID, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


class _FlowIds:
    """Fresh ids for flow events."""

    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        """The next unused id."""
        self.next += 1
        return self.next


def _flow(name: str, flow_id: int, src_tid: int, src_ts, dst_tid: int, dst_ts) -> list[dict]:
    """Two marker slices and the arrow joining them."""
    return [
        _slice(name, "flow", src_tid, src_ts, 0, {}),
        _slice(name, "flow", dst_tid, dst_ts, 0, {}),
        {"ph": "s", "name": name, "cat": "flow", "id": flow_id, "pid": PID, "tid": src_tid,
         "ts": src_ts},
        {"ph": "f", "bp": "e", "name": name, "cat": "flow", "id": flow_id, "pid": PID,
         "tid": dst_tid, "ts": dst_ts},
    ]


def _flag_flows(timeline, flow: _FlowIds) -> list[dict]:
    """One arrow from the k-th set of each flag to the k-th wait that consumed it."""
    events = []
    for flag, (sets, waits) in zip(timeline.flag_table, timeline.flags, strict=True):
        name = f"flag {flag.pair} #{flag.event}"
        for (set_time, _, _), (wait_time, _, _) in zip(sets, waits, strict=False):
            events += _flow(name, flow.take(), flag.src, set_time, flag.dst, wait_time)
    return events


def _barrier_flows(timeline, flow: _FlowIds) -> list[dict]:
    """Barrier waits as slices, and arrows from each arrival to the other groups' release."""
    events = []
    for k, (arrivals, release) in sorted(timeline.barriers.items()):
        if release is None:
            continue
        name = f"barrier #{k + 1}"
        for issuer, arrived in arrivals.items():
            if release > arrived:
                events.append(_slice(name, "sync", issuer, arrived, release - arrived, {}))
            for other in arrivals:
                if other != issuer:
                    events += _flow(name, flow.take(), issuer, arrived, other, release)
    return events
