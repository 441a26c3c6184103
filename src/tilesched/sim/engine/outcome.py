"""Turning a finished (or stuck) engine run into a :class:`~tilesched.sim.result.SimResult`.

Deadlock diagnosis (every agent left with work and what it waits for), end-of-run flag and barrier
checks, the lower bound, utilization, and the recorded timeline. The functions take the
:class:`~tilesched.sim.engine.engine.Engine` whose state they read.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilesched.sim.engine.sync_check import check_barriers
from tilesched.sim.result import Blocked, Findings, SimResult


@dataclass
class Timeline:
    """What happened when, kept only when recording (Chrome trace, functional replay).

    ``ops``: ``(agent, start, end, op_index)`` per executed tile op, in a linear extension of
    happens-before; ``syncs``: ``(agent, start, end, op_index)`` per executed sync op, in the order
    each agent executed them (``end > start`` when it blocked: see :attr:`stalls`);
    ``flags``: per flag, its sets ``(time, vc, op)`` and waits ``(time, epoch, op)``;
    ``barriers``: per barrier number, ``({issuer: arrival time}, release time or None)``.
    ``agents`` names the agents, ``op_table`` maps op indices to trace ops, ``flag_table``
    gives each flag's src/dst agents.
    """

    ops: list[tuple]
    syncs: list[tuple]
    flags: list[tuple[list, list]]
    barriers: dict[int, tuple[dict, float | None]]
    agents: list[str]
    op_table: list
    flag_table: list

    @property
    def stalls(self) -> list[tuple]:
        """The sync ops that blocked their agent: ``(agent, start, end, op_index)``."""
        return [s for s in self.syncs if s[2] > s[1]]


def diagnose_deadlock(e) -> list[Blocked] | None:
    """Every agent left with work, and what it waits for."""
    blocked = []
    for i in range(e.n_issuers):
        if not e.done[i]:
            blocked.append(_issuer_blocked(e, i))
    for agent in e.p.agents[e.n_issuers:]:
        a = agent.index
        if e.head[a] < len(e.items[a]):
            item = e.items[a][e.head[a]]
            op = e.p.op_of(item[2])
            blocked.append(Blocked(agent.name, op.name, op.loc, _flag_text(e, item[1])))
    return blocked or None


def _issuer_blocked(e, i: int) -> Blocked:
    """Describe why issuer ``i`` cannot continue."""
    ins = e.code[i][e.pc[i]]
    op = e.p.op_of(e._issuer_op_index(ins))
    reason = e.block[i]
    name = e.p.agents[i].name
    if reason is None:
        text = "nothing (stopped)"
    elif reason[0] == "flag":
        text = _flag_text(e, reason[1])
    elif reason[0] == "barrier":
        k = reason[1]
        missing = [e.p.agents[j].name for j in range(e.n_issuers)
                   if j not in e.arrivals.get(k, {})]
        text = f"barrier #{k + 1} to be reached by {', '.join(missing)}"
    else:
        agent = e.p.agents[reason[1]]
        text = (f"{agent.name} to finish its first {reason[2]} ops ({reason[3]}); "
                f"it finished {e.base[reason[1]] + e.head[reason[1]]}")
    return Blocked(name, op.name, op.loc, text)


def _flag_text(e, flag: int) -> str:
    """What a wait on ``flag`` is missing."""
    f = e.p.flags[flag]
    sets, waits = e.flags.sets[flag], e.flags.waits[flag]
    return (f"flag {f.pair} event {f.event} (wait #{waits + 1}, but it was set "
            f"{sets} time(s))")


def _cycles(e) -> int:
    """Time at which the last agent finished."""
    ends = [e.clock[i] for i in range(e.n_issuers)]
    ends += [e._unit_end(a.index) for a in e.p.agents[e.n_issuers:] if e.base[a.index] + e.head[a.index]]
    ends += e.res_free
    return int(max(ends, default=0))


def build_result(e) -> SimResult:
    """Assemble the SimResult after the run.

    Compiled twin: ``native/core.pyx`` ``NativeEngine.summary`` (with :func:`native_result`)."""
    deadlock = diagnose_deadlock(e)
    cycles = _cycles(e)
    peak = e.flags.finish(e._time_floor)
    if deadlock is None:
        check_barriers(e.p, e.bar_count, e.findings)
    units, agents = _utilization(e.p, e.busy, e.res_busy, cycles)
    bound, reason = e.bound.bound() if e.bound is not None else (0, "not computed")
    races = e.detector.races() if e.detector is not None else []
    timeline = None
    if e.records is not None:
        barriers = dict(e.barrier_log)
        for k, arrived in e.arrivals.items():
            if k not in e.released:
                barriers[k] = ({j: a[0] for j, a in arrived.items()}, None)
        timeline = Timeline(e.records, e.syncs, e.flags.history, barriers,
                            [a.name for a in e.p.agents], e.p.op_table, e.p.flags)
    represented = e.tile_ops + e.sync_ops
    skipped = e.steady.skipped_ops if e.steady is not None else 0
    return SimResult(e.machine.name, cycles, bound, reason, units, races, deadlock,
                     e.findings.list(), e.sync_ops, peak, e.tile_ops, agents, timeline,
                     e.steady.summary() if e.steady is not None else [],
                     represented - skipped, represented, e.machine.frequency_hz)


def native_result(p, summary: dict, bound: tuple[int, str]) -> SimResult:
    """The SimResult of a clean native run (``native/core.pyx`` ``NativeEngine.summary``): no race,
    no deadlock, no flag finding (the native engine hands anything else to the Python one)."""
    cycles = summary["cycles"]
    findings = Findings()
    check_barriers(p, summary["bar_count"], findings)
    units, agents = _utilization(p, summary["busy"], summary["res_busy"], cycles)
    ops = summary["tile_ops"] + summary["sync_ops"]
    return SimResult(p.machine.name, cycles, bound[0], bound[1], units, [], None, findings.list(),
                     summary["sync_ops"], summary["peaks"], summary["tile_ops"], agents, None, [],
                     ops, ops, p.machine.frequency_hz)


def _utilization(p, busy_of: list, res_busy: list, cycles: int) -> tuple[dict, dict]:
    """Busy cycles per machine unit (instances summed) and per agent."""
    machine = p.machine
    units = {name: {"busy": 0, "instances": 0} for name in machine.units}
    agents = {}
    for agent in p.agents[p.issuer_count:]:
        busy = busy_of[agent.index]
        units[agent.unit]["busy"] += busy
        units[agent.unit]["instances"] += 1
        agents[agent.name] = {"busy": busy, "utilization": _ratio(busy, cycles)}
    for r, name in enumerate(p.inline_units):
        units[name]["busy"] = res_busy[r]
        units[name]["instances"] = 1
    for entry in units.values():
        entry["utilization"] = _ratio(entry["busy"], cycles * max(entry["instances"], 1))
        del entry["instances"]
    return units, agents


def _ratio(busy: int, cycles: int) -> float:
    """Utilization rounded for reports (0 when nothing ran)."""
    return round(busy / cycles, 4) if cycles else 0.0
