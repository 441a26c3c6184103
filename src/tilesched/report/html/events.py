"""The report's event table: every executed op of a recorded run, with what ordered it.

The engine records, per executed op, ``(agent, start, end, op_index)`` (tile ops in
``Timeline.ops``, sync ops in ``Timeline.syncs``) plus the flag sets/waits and barrier arrivals.
From that and the engine's rules (DESIGN.md §4, ``sim/engine/engine.py``) this module recovers, after
the fact and without re-simulating:

- *issue times*: an issuer walks its program in order; its clock is the end of the last op it ran
  itself (inline tile ops, sync ops) plus ``issue_cost`` per op it enqueued since, so every
  enqueued op's issue time follows from the issuer's own events;
- *start causes*: a unit starts an op at ``max(issue time, unit free)`` (a pipelined unit is free
  one cycle after its previous start), an inline op at ``max(issuer free, shared unit free)``;
  whichever term won is the event the op waited for;
- *end causes* of sync ops that blocked: the flag set a wait consumed (the k-th wait consumes
  the k-th set), the last op of the group a ``wait_group`` needed, the last group to reach a
  barrier, the unit ops a ``barrier_all`` or a ``local`` barrier drained;
- *sync edges*: for every executed sync op, the events it was ordered after (set -> wait,
  commit -> wait_group and the group's last op -> wait_group, other groups' arrival -> barrier,
  drained ops -> barrier_all), whether it blocked or not;
- the *critical path*: from the op that finished last, follow each event's cause back to time 0.

Events are kept as parallel lists (columns): a 100k-op run is 100k rows, built in well under a
second.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.sim.trace import Access, MachineModel, TraceOp

# Why an event started (or, for a blocked sync op, ended) when it did.
START, UNIT, PIPE, ISSUE, RESOURCE, FLAG, GROUP, BARRIER, DRAIN = (
    "start", "unit", "pipe", "issue", "resource", "flag", "group", "barrier", "drain")
WAIT_FLAG, WAIT_GROUP = "sync.wait_flag", "sync.wait_group"
BARRIERS = ("sync.barrier", "sync.cond_barrier")


@dataclass
class EventTable:
    """Columns of one run's executed ops; an event is an index into every list.

    ``agent``/``rows``: the issuer or unit instance that ran it (``rows`` names the agents, issuers
    first). ``dep``/``dep_kind``: the event whose end decided this one's start (or, for a sync op
    that blocked, its end), ``-1`` when nothing did; ``edges``: ``(source, target, kind)`` sync
    edges. ``avail``: issue time of enqueued ops (``None`` for an issuer's own ops).
    """

    rows: list[str]
    row_kinds: list[str]
    op_table: list[TraceOp]
    agent: list[int] = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    op: list[int] = field(default_factory=list)
    sync: list[bool] = field(default_factory=list)
    avail: list[int | None] = field(default_factory=list)
    dep: list[int] = field(default_factory=list)
    dep_kind: list[str] = field(default_factory=list)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    critical: list[bool] = field(default_factory=list)
    barrier_index: dict[int, int] = field(default_factory=dict)  # barrier event -> k
    queue_of: dict[int, int] = field(default_factory=dict)  # commit/wait_group event -> unit agent
    by_row: list[list[int]] = field(default_factory=list)  # events per agent, execution order
    chain: list[int] = field(default_factory=list)  # the critical path, in time order

    def __len__(self) -> int:
        return len(self.start)

    def name(self, e: int) -> str:
        return self.op_table[self.op[e]].name

    def loc(self, e: int) -> str:
        return self.op_table[self.op[e]].loc

    def critical_path(self) -> list[int]:
        """The critical path, from the event at time 0 to the one that finished last."""
        return list(self.chain)


def build_events(timeline, machine: MachineModel, pipelined: set[str] | None = None) -> EventTable:
    """The event table of a recorded run (``simulate(..., record=True).timeline``)."""
    kinds = _agent_kinds(timeline.agents, machine)
    table = EventTable(list(timeline.agents), kinds, timeline.op_table)
    records = timeline.ops + timeline.syncs
    table.agent = [r[0] for r in records]
    table.start = [int(r[1]) for r in records]
    table.end = [int(r[2]) for r in records]
    table.op = [r[3] for r in records]
    table.sync = [False] * len(timeline.ops) + [True] * len(timeline.syncs)
    n = len(table)
    table.avail = [None] * n
    table.dep = [-1] * n
    table.dep_kind = [START] * n
    table.critical = [False] * n
    table.by_row = _execution_order(table)
    issuer_prev = _replay_issue(table, machine)
    flag_sources = _flag_sources(timeline, table)
    _attribute(table, machine, issuer_prev, flag_sources, pipelined or _pipelined(machine),
               timeline.barriers)
    _mark_critical_path(table)
    return table


def _agent_kinds(agents: list[str], machine: MachineModel) -> list[str]:
    """``issuer`` or the unit kind of each agent (``UNIT@group`` names one group's instance)."""
    kinds = []
    for name in agents:
        if name in machine.issuers:
            kinds.append("issuer")
        else:
            kinds.append(machine.units[name.split("@")[0]].kind)
    return kinds


def _pipelined(machine: MachineModel) -> set[str]:
    return {name for name, spec in machine.units.items() if spec.pipelined}


def _execution_order(table: EventTable) -> list[list[int]]:
    """Events per agent in the order it executed them (program order of its ops)."""
    rows: list[list[int]] = [[] for _ in table.rows]
    for e in sorted(range(len(table)), key=table.op.__getitem__):
        rows[table.agent[e]].append(e)
    return rows


def _replay_issue(table: EventTable, machine: MachineModel) -> list[int]:
    """Issue times of enqueued ops; returns each event's previous own event on its issuer.

    Walks all ops in index order (each issuer's program is contiguous and in program order).
    """
    issuers = {name: i for i, name in enumerate(machine.issuers)}
    by_op = {op: e for e, op in enumerate(table.op)}
    clock = [0] * len(issuers)
    last = [-1] * len(issuers)
    prev = [-1] * len(table)
    cost = machine.issue_cost
    for op_index in sorted(by_op):
        e = by_op[op_index]
        i = issuers[table.op_table[op_index].issuer]
        prev[e] = last[i]
        if table.agent[e] == i:
            clock[i] = table.end[e]
            last[i] = e
        else:
            table.avail[e] = clock[i]
            clock[i] += cost
    return prev


def _flag_sources(timeline, table: EventTable) -> dict[int, int]:
    """wait event -> the set event it consumed (the k-th wait of a flag consumes its k-th set)."""
    by_op = {table.op[e]: e for e in range(len(table)) if table.sync[e]}
    sources = {}
    for sets, waits in timeline.flags:
        for (_, _, set_op), (_, _, wait_op) in zip(sets, waits, strict=False):
            if set_op in by_op and wait_op in by_op:
                sources[by_op[wait_op]] = by_op[set_op]
    return sources


class _Attribution:
    """State of the walk that assigns causes and sync edges (see the module docstring)."""

    def __init__(self, table: EventTable, machine: MachineModel, issuer_prev: list[int],
                 flag_sources: dict[int, int], pipelined: set[str], arrivals: dict):
        self.t = table
        self.arrivals = arrivals
        self.machine = machine
        self.issuer_prev = issuer_prev
        self.flag_sources = flag_sources
        self.pipelined = pipelined
        self.n_issuers = len(machine.issuers)
        self.agent_index = {name: a for a, name in enumerate(table.rows)}
        self.group_commits: dict[int, int] = {}  # wait_group -> commit of the group it needs
        self.group_waits = self._group_waits()
        self.resource_prev = self._resource_prev()
        self.barriers = self._barriers()

    # -------------------------------------------------------------- lookups built once

    def _group_waits(self) -> dict[int, int]:
        """wait_group event -> the last event of the newest group it had to see complete.

        Replays the engine's commit bookkeeping in program order: a commit records how many ops
        were enqueued to the queue's unit so far; ``wait_group(pending=N)`` needs every group but
        the newest N complete, i.e. the unit's first ``committed[-N-1]`` ops.
        """
        t, out = self.t, {}
        items: dict[int, list[int]] = {}
        committed: dict[int, list[int]] = {}
        commits: dict[int, list[int]] = {}  # the commit events, parallel to ``committed``
        for e in sorted(range(len(t)), key=t.op.__getitem__):
            a = t.agent[e]
            if a >= self.n_issuers:
                items.setdefault(a, []).append(e)
                continue
            op = t.op_table[t.op[e]]
            if op.name not in ("sync.commit_group", WAIT_GROUP):
                continue
            unit_agent = self._queue_agent(op, a)
            if unit_agent is None:
                continue
            t.queue_of[e] = unit_agent
            done = committed.setdefault(unit_agent, [])
            enqueued = items.get(unit_agent, [])
            if op.name == "sync.commit_group":
                done.append(len(enqueued))
                commits.setdefault(unit_agent, []).append(e)
                continue
            oldest_open = len(done) - max(0, int(op.props.get("pending", 0)))
            if oldest_open > 0:
                self.group_commits[e] = commits[unit_agent][oldest_open - 1]
                if done[oldest_open - 1] > 0:
                    out[e] = enqueued[done[oldest_open - 1] - 1]
        return out

    def _queue_agent(self, op: TraceOp, issuer: int) -> int | None:
        unit = self.machine.async_queues.get(int(op.props.get("queue", 0)))
        if unit is None:
            return None
        name = unit if self.n_issuers == 1 else f"{unit}@{self.machine.issuers[issuer]}"
        return self.agent_index.get(name)

    def _resource_prev(self) -> dict[int, int]:
        """Inline tile event -> the previous event on the same (shared) inline unit."""
        t, per_unit = self.t, {}
        for e in range(len(t)):
            if t.agent[e] < self.n_issuers and not t.sync[e]:
                per_unit.setdefault(t.op_table[t.op[e]].unit, []).append(e)
        out = {}
        for events in per_unit.values():
            events.sort(key=lambda e: (t.start[e], t.end[e]))
            for before, after in zip(events, events[1:], strict=False):
                out[after] = before
        return out

    def _barriers(self) -> dict[int, list[int]]:
        """Barrier number k -> the barrier event of each issuer group that reached it."""
        t, found = self.t, {}
        for i in range(self.n_issuers):
            k = 0
            for e in t.by_row[i]:
                if t.sync[e] and t.op_table[t.op[e]].name in BARRIERS:
                    found.setdefault(k, []).append(e)
                    t.barrier_index[e] = k
                    k += 1
        return found

    # -------------------------------------------------------------- the walk

    def run(self) -> None:
        t = self.t
        for a, events in enumerate(t.by_row):
            if a < self.n_issuers:
                self._issuer_row(events)
            else:
                self._unit_row(events, t.rows[a].split("@")[0] in self.pipelined)

    def _issuer_row(self, events: list[int]) -> None:
        """An issuer's own ops start when it is free (or, inline, when the shared unit is)."""
        t = self.t
        for e in events:
            prev = self.issuer_prev[e]
            free = t.end[prev] if prev >= 0 else 0
            other = self.resource_prev.get(e, -1)
            if not t.sync[e] and t.start[e] > free and other >= 0 and t.end[other] == t.start[e]:
                self._cause(e, other, RESOURCE)
            elif prev >= 0:
                self._cause(e, prev, UNIT)
            if t.sync[e]:
                self._sync_sources(e)

    def _unit_row(self, events: list[int], pipelined: bool) -> None:
        """A unit starts each op at max(issue time, unit free); blocked syncs wait for their source."""
        t = self.t
        prev, free, drain = -1, 0, -1
        for e in events:
            issued = t.avail[e] if t.avail[e] is not None else 0
            if prev >= 0 and t.start[e] == free and free >= issued:
                # a pipelined unit starts an op one cycle after the previous one started
                self._cause(e, prev, PIPE if pipelined and not t.sync[prev] else UNIT)
            else:
                self._cause(e, self.issuer_prev[e], ISSUE)
            if t.sync[e]:
                self._sync_sources(e, drain if pipelined else -1)
            elif drain < 0 or t.end[e] >= t.end[drain]:
                drain = e
            prev = e
            free = t.start[e] + 1 if pipelined and not t.sync[e] else t.end[e]

    def _cause(self, e: int, source: int, kind: str) -> None:
        if source >= 0:
            self.t.dep[e], self.t.dep_kind[e] = source, kind

    def _sync_sources(self, e: int, drain: int = -1) -> None:
        """Sync edges into sync event ``e``; a blocked one takes the latest as its cause."""
        t = self.t
        name = t.op_table[t.op[e]].name
        sources: list[tuple[int, str]] = []
        if name == WAIT_FLAG and e in self.flag_sources:
            sources.append((self.flag_sources[e], FLAG))
        elif name == WAIT_GROUP and e in self.group_waits:
            sources.append((self.group_waits[e], GROUP))
            if e in self.group_commits:  # commit -> wait: which group it was (never its cause)
                t.edges.append((self.group_commits[e], e, GROUP))
        elif name in BARRIERS:
            self._barrier_sources(e)
            return
        elif name == "sync.barrier_all":
            sources += [(s, DRAIN) for s in self._drained_by(e)]
        elif drain >= 0 and name in ("sync.set_flag", "sync.pipe_barrier"):  # pipelined units
            sources.append((drain, DRAIN))
        for source, kind in sources:
            t.edges.append((source, e, kind))
        if t.end[e] > t.start[e] and sources:
            source, kind = max(sources, key=lambda s: t.end[s[0]])
            self._cause(e, source, kind)

    def _barrier_sources(self, e: int) -> None:
        """A barrier is ordered after every other group's arrival (and, ``local``, its LDS ops).

        It releases when the last group arrives: a group that arrived last waited only for its
        own LDS drain (or nothing); the others waited for that group.
        """
        t = self.t
        k = t.barrier_index[e]
        arrivals = self.arrivals.get(k, ({}, None))[0]
        peers = [p for p in self.barriers.get(k, []) if p != e]
        lds = self._last_before(e, "lds") if t.op_table[t.op[e]].props.get("local") else -1
        for p in peers:
            t.edges.append((p, e, BARRIER))
        if lds >= 0:
            t.edges.append((lds, e, DRAIN))
        if t.end[e] <= t.start[e]:
            return
        own = arrivals.get(t.agent[e], t.start[e])
        last = max(peers, key=lambda p: arrivals.get(t.agent[p], -1), default=-1)
        if last >= 0 and arrivals.get(t.agent[last], -1) > own:
            self._cause(e, last, BARRIER)
        elif lds >= 0 and own > t.start[e] and t.end[lds] == own:
            self._cause(e, lds, DRAIN)

    def _last_before(self, e: int, kind: str) -> int:
        """The last event of the issuer's unit of ``kind`` enqueued before ``e``."""
        t = self.t
        issuer = t.agent[e]
        best = -1
        for a, row in enumerate(t.by_row):
            if t.row_kinds[a] != kind or not self._owned_by(a, issuer):
                continue
            for x in reversed(row):
                if t.op[x] < t.op[e]:
                    if best < 0 or t.end[x] > t.end[best]:
                        best = x
                    break
        return best

    def _drained_by(self, e: int) -> list[int]:
        """barrier_all: the last op enqueued before it on each unit instance of its issuer."""
        t = self.t
        issuer, out = t.agent[e], []
        for a in range(self.n_issuers, len(t.rows)):
            if not self._owned_by(a, issuer):
                continue
            row = t.by_row[a]
            lo, hi = 0, len(row)
            while lo < hi:  # last event of the row with an op index below e's
                mid = (lo + hi) // 2
                if t.op[row[mid]] < t.op[e]:
                    lo = mid + 1
                else:
                    hi = mid
            if lo:
                out.append(row[lo - 1])
        return out

    def _owned_by(self, agent: int, issuer: int) -> bool:
        name = self.t.rows[agent]
        if self.n_issuers == 1:
            return True
        return name.endswith("@" + self.machine.issuers[issuer])


def _attribute(table: EventTable, machine: MachineModel, issuer_prev: list[int],
               flag_sources: dict[int, int], pipelined: set[str], arrivals: dict) -> None:
    _Attribution(table, machine, issuer_prev, flag_sources, pipelined, arrivals).run()


def _mark_critical_path(table: EventTable) -> None:
    """Follow causes back from the event that finished last (ties: the latest start)."""
    if not len(table):
        return
    e = max(range(len(table)), key=lambda x: (table.end[x], table.start[x], not table.sync[x]))
    while e >= 0 and not table.critical[e]:
        table.critical[e] = True
        table.chain.append(e)
        e = table.dep[e]
    table.chain.reverse()


def describe_operands(op: TraceOp, buffers) -> str:
    """``a[0:128, 64:128], acc -> c`` style text of an op's operands (reads, then the write)."""
    parts = []
    for operand in op.operands:
        if isinstance(operand, Access):
            buf = buffers[operand.buffer]
            if operand.region == buf.region:
                parts.append(buf.name)
            else:
                dims = ", ".join(f"{lo}:{hi}" for lo, hi in operand.region)
                parts.append(f"{buf.name}[{dims}]")
        else:
            parts.append(repr(operand))
    if op.name == "tile.call":
        return f"@{op.props.get('callee', '?')}({', '.join(parts)})"
    if len(parts) > 1:
        return ", ".join(parts[:-1]) + " -> " + parts[-1]
    return ", ".join(parts)


def describe_sync(op: TraceOp) -> str:
    """The properties of a sync op that say what it synchronizes."""
    p = op.props
    if op.name in ("sync.set_flag", WAIT_FLAG):
        return f"{p.get('src')} -> {p.get('dst')}, event {p.get('event')}"
    if op.name == "sync.commit_group":
        return f"queue {p.get('queue', 0)}"
    if op.name == WAIT_GROUP:
        return f"queue {p.get('queue', 0)}, pending {p.get('pending', 0)}"
    if op.name == "sync.pipe_barrier":
        return f"pipe {p.get('pipe')}"
    if op.name in BARRIERS:
        local = " local" if p.get("local") else ""
        group = f" group {p.get('group')}" if op.name == "sync.cond_barrier" else ""
        return (local + group).strip()
    if op.name == "sync.setprio":
        return f"priority {p.get('priority', 0)}"
    return ""
