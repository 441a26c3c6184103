"""The timing engine: executes a compiled trace on its machine model (DESIGN.md §4).

Model. Every issuer walks its program in order. An op on a non-inline unit is *enqueued* (the
issuer spends ``issue_cost`` cycles and goes on); each unit instance runs its queue in order, one op
at a time, from ``max(unit free, op enqueued, what the op waits for)``. An inline op runs on the
issuer, which waits for it; inline units shared by several issuer groups serve requests in time
order (ties: higher ``setprio`` priority, then the leading group). Pipelined units start an op one
cycle after the previous one started, so their own ops overlap; ``set_flag`` and ``pipe_barrier``
drain them.

Algorithm. Apart from arbitration of shared inline units, every time in this model is a max-plus
expression of earlier times (flags are matched by count: the k-th wait consumes the k-th set;
barriers by count; groups by commit order), so the engine need not process events in global time
order. It advances each agent as far as it can (a worklist of agents, each run until it blocks on
something not yet computed) and wakes it when that something is produced. This makes a unit's run
of a thousand ops a tight loop over a list, with no event heap. Shared inline units are handled
conservatively (an issuer may claim one only when no other group can still request it earlier);
when nothing else can move, the earliest waiting request goes. If nothing can move and work is
left, the program is deadlocked and every blocked agent says what it waits for.

The same pass maintains vector clocks (``happens_before.py``): an enqueued op inherits the
snapshot of what its issuer had *finished* when issuing it, a wait joins the clock its set exported,
``barrier_all`` / ``wait_group`` / ``local`` barriers join the clocks of the ops they wait for, and
barrier rendezvous joins all arrivals. Because an agent only proceeds after its dependencies were
processed, the engine feeds the race detector a linear extension of happens-before.
"""

from __future__ import annotations

import gc
from collections import deque

from tilesched.sim.happens_before import RaceDetector, RaceSide, join, with_epoch
from tilesched.sim.outcome import build_result
from tilesched.sim.program import (
    BALL,
    BAR,
    COMMIT,
    ENQ,
    INLINE,
    ISET,
    IWAIT,
    PRIO,
    SET,
    TILE,
    WAIT,
    WAITG,
    Program,
    compile_trace,
)
from tilesched.sim.result import Findings, SimResult
from tilesched.sim.trace import Trace

INF = float("inf")


class Engine:
    """One simulation of a trace; :meth:`run` returns a :class:`SimResult`."""

    def __init__(self, trace: Trace, check_races: bool = True, record: bool = False,
                 bound: bool = True):
        self.trace = trace
        pipelined = any(spec.pipelined for spec in trace.machine.units.values())
        self.p: Program = compile_trace(trace, with_accesses=check_races or bound or pipelined)
        self.want_bound = bound
        self._init_state(record)
        self.detector = None
        if check_races:
            self.accessing, solo = _memory_users(self.p)
            self.detector = RaceDetector(self._describe, self.p.buffer_label,
                                         self._live_views, self.p.position, solo)

    def _init_state(self, record: bool) -> None:
        """Per-agent arrays (indexed by agent), flags, groups, barriers."""
        p = self.p
        n, issuers, flags = len(p.agents), p.issuer_count, len(p.flags)
        self.n_issuers = issuers
        self.clock = [0] * n
        self.items = [[] for _ in range(n)]
        self.avail = [[] for _ in range(n)]
        self.ivc = [[] for _ in range(n)]
        self.head = [0] * n
        self.vc = [(0,) * n for _ in range(n)]
        self.last_iv = [None] * n
        self.seq = [0] * n
        self.vc_at = [[] for _ in range(n)]
        self.end_pm = [[] for _ in range(n)]
        self.busy = [0] * n
        self.watch = [[] for _ in range(n)]
        self.inwl = [False] * n
        self.worklist: deque[int] = deque()
        self.snap = [None] * issuers
        self.pc = [0] * issuers
        self.done = [False] * issuers
        self.prio = [0] * issuers
        self.block: list[tuple | None] = [None] * issuers
        self.arb: dict[int, int] = {}
        self.forced = -1
        self.res_free = [0] * len(p.inline_units)
        self.res_busy = [0] * len(p.inline_units)
        self.flag_sets = [[] for _ in range(flags)]
        self.flag_waits = [[] for _ in range(flags)]
        self.flag_waiter = [None] * flags
        self.groups = {a: [] for a in range(n)}
        self.bar_count = [0] * issuers
        self.bar_wait: list[int | None] = [None] * issuers
        self.arrivals: dict[int, dict[int, tuple]] = {}
        self.released: dict[int, tuple] = {}
        self.findings = Findings()
        for kind, detail in p.static_violations:
            self.findings.add(kind, detail)
        self.sync_ops = 0
        self.tile_ops = 0
        self.pipe = {a.index: _PipeState() for a in p.agents if a.pipelined}
        self.records = [] if record else None
        self.syncs = [] if record else None  # every executed sync op, when recording
        self.accessing: list[int] = []

    # ------------------------------------------------------------------ driver

    def push(self, agent: int) -> None:
        """Put an agent on the worklist (once)."""
        if not self.inwl[agent]:
            self.inwl[agent] = True
            self.worklist.append(agent)

    def run(self) -> SimResult:
        """Execute until every agent is done or nothing can move, then build the result."""
        for i in range(self.n_issuers):
            self.push(i)
        wl, inwl, n_iss = self.worklist, self.inwl, self.n_issuers
        while True:
            while wl:
                agent = wl.popleft()
                inwl[agent] = False
                if agent < n_iss:
                    self._run_issuer(agent)
                elif agent in self.pipe:
                    self._run_pipelined(agent)
                else:
                    self._run_unit(agent)
            if not self.arb:
                break
            first = min(self.arb, key=lambda i: (self.arb[i], -self.prio[i], i))
            del self.arb[first]
            self.forced = first
            self.push(first)
        return build_result(self)

    # ------------------------------------------------------------------ issuers

    def _snapshot(self, i: int) -> tuple:
        """The vector clock of what issuer ``i`` has finished (handed to ops it enqueues)."""
        snap = self.snap[i]
        if snap is None:
            snap = self.snap[i] = with_epoch(self.vc[i], i, self.seq[i])
        return snap

    def _run_issuer(self, i: int) -> None:
        """Walk issuer ``i``'s program until it ends or blocks."""
        code, pc, n = self.p.code[i], self.pc[i], len(self.p.code[i])
        clock = self.clock[i]
        items, avail, ivc, inwl = self.items, self.avail, self.ivc, self.inwl
        issue_cost = self.trace.machine.issue_cost
        progressed = False
        snap = self._snapshot(i)
        while pc < n:
            ins = code[pc]
            op = ins[0]
            if op == ENQ:
                agent = ins[1]
                items[agent].append(ins[2])
                avail[agent].append(clock)
                ivc[agent].append(snap)
                if not inwl[agent]:
                    inwl[agent] = True
                    self.worklist.append(agent)
                clock += issue_cost
            elif op == INLINE:
                if self.n_issuers > 1 and self.forced != i and not self._may_use(i, clock):
                    self.arb[i] = clock
                    break
                self.forced = -1
                clock = self._inline(i, ins[1], ins[2], clock)
                snap = self._snapshot(i)
            else:
                self.clock[i] = clock
                after = self._issuer_sync(i, ins, clock)
                if after is None:
                    break
                clock = after
                snap = self._snapshot(i)
            pc += 1
            progressed = True
        self.pc[i], self.clock[i] = pc, clock
        if pc >= n and not self.done[i]:
            self._finish_issuer(i)
        if progressed and self.arb:
            for other in list(self.arb):
                if other != i:
                    del self.arb[other]
                    self.push(other)

    def _inline(self, i: int, res: int, item: tuple, clock: int) -> int:
        """Run a tile op on a (possibly shared) inline unit; returns the issuer's new time."""
        start = max(clock, self.res_free[res])
        dur = item[1]
        end = start + dur
        self.res_free[res] = end
        self.res_busy[res] += dur
        self.tile_ops += 1
        self.seq[i] += 1
        self.snap[i] = None
        if self.detector is not None and item[3]:
            self.detector.access(i, self.vc[i], self.seq[i], item[2], item[3])
        if self.records is not None:
            self.records.append((i, start, end, item[2]))
        return end

    def _may_use(self, i: int, t: int) -> bool:
        """True when no other issuer group can still request a shared inline unit before ``t``."""
        for j in range(self.n_issuers):
            if j == i or self.done[j]:
                continue
            lb = self._request_floor(j, i)
            if lb < t or (lb == t and (self.prio[j], -j) > (self.prio[i], -i)):
                return False
        return True

    def _request_floor(self, j: int, asking: int) -> float:
        """Earliest time issuer ``j`` could next claim an inline unit."""
        if j in self.arb:
            return self.arb[j]
        k = self.bar_wait[j]
        if k is not None and k not in self.released and asking not in self.arrivals.get(k, {}):
            return INF  # j waits at a barrier that ``asking`` has yet to reach
        return self.clock[j]

    def _issuer_sync(self, i: int, ins: tuple, clock: int) -> int | None:
        """Execute one sync instruction on issuer ``i``; ``None`` when it must block."""
        op = ins[0]
        if op == BALL:
            after = self._await_agents(i, self.p.fed[i], None, clock, "barrier_all")
        elif op == WAITG:
            after = self._wait_group(i, ins, clock)
        elif op == BAR:
            after = self._barrier(i, ins, clock)
        elif op == COMMIT:
            self.groups[ins[1]].append(len(self.items[ins[1]]))
            after = clock
        elif op == ISET:
            self._set_flag(ins[1], clock, with_epoch(self.vc[i], i, self.seq[i]), ins[2])
            after = clock
        elif op == IWAIT:
            after = self._issuer_wait(i, ins, clock)
        elif op == PRIO:
            self.prio[i] = ins[1]
            after = clock
        else:
            after = clock
        if after is not None:
            self.sync_ops += 1
            self.block[i] = None
            if self.syncs is not None:
                self.syncs.append((i, clock, after, self._issuer_op_index(ins)))
        return after

    def _await_agents(self, i: int, agents, counts, clock: int, why: str) -> int | None:
        """Wait until each agent has executed its first ``counts[k]`` ops (default: all enqueued).

        Joins their exported clocks into issuer ``i``; ``None`` (and a watch) when not yet done.
        """
        t, vc = clock, self.vc[i]
        for k, agent in enumerate(agents):
            need = len(self.items[agent]) if counts is None else counts[k]
            if need == 0:
                continue
            if self.head[agent] < need:
                self.watch[agent].append((need, i))
                self.block[i] = ("agent", agent, need, why)
                return None
            t = max(t, self.end_pm[agent][need - 1])
            vc = join(vc, with_epoch(self.vc_at[agent][need - 1], agent, need))
        self.vc[i] = vc
        self.seq[i] += 1
        self.snap[i] = None
        return t

    def _wait_group(self, i: int, ins: tuple, clock: int) -> int | None:
        """``wait_group``: at most ``pending`` committed groups of the queue may stay incomplete."""
        agent, pending = ins[1], ins[2]
        committed = self.groups[agent]
        oldest_open = len(committed) - pending
        if oldest_open <= 0:
            return clock
        need = committed[oldest_open - 1]
        return self._await_agents(i, (agent,), (need,), clock, f"wait_group({pending})")

    def _barrier(self, i: int, ins: tuple, clock: int) -> int | None:
        """Counter-based rendezvous (``local`` first drains the group's LDS ops)."""
        k = self.bar_wait[i]
        if k is None:
            lds = self.p.lds_agent[i]
            if ins[1] and lds is not None:
                drained = self._await_agents(i, (lds,), None, clock, "local barrier")
                if drained is None:
                    return None
                clock = drained
            k = self.bar_count[i]
            self.bar_count[i] += 1
            self.bar_wait[i] = k
            self.arrivals.setdefault(k, {})[i] = (clock, with_epoch(self.vc[i], i, self.seq[i]))
            self._try_release(k)
        if k not in self.released:
            self.block[i] = ("barrier", k)
            return None
        self.bar_wait[i] = None
        t, vc = self.released[k]
        self.vc[i] = join(self.vc[i], vc)
        self.seq[i] += 1
        self.snap[i] = None
        return max(clock, t)

    def _try_release(self, k: int) -> None:
        """Release barrier ``k`` once every group arrived or has finished its program."""
        arrived = self.arrivals.get(k, {})
        if k in self.released or not arrived:
            return
        missing = [j for j in range(self.n_issuers) if j not in arrived]
        if any(not self.done[j] for j in missing):
            return
        t = max(a[0] for a in arrived.values())
        vc = arrived[next(iter(arrived))][1]
        for _, other in arrived.values():
            vc = join(vc, other)
        self.released[k] = (t, vc)
        for j in arrived:
            self.push(j)

    def _issuer_wait(self, i: int, ins: tuple, clock: int) -> int | None:
        """``wait_flag`` whose dst is the issuer itself (or an inline unit)."""
        flag = ins[1]
        sets, waits = self.flag_sets[flag], self.flag_waits[flag]
        if len(waits) >= len(sets):
            self.flag_waiter[flag] = i
            self.block[i] = ("flag", flag, ins[2])
            return None
        set_time, set_vc, _ = sets[len(waits)]
        t = max(clock, set_time)
        self.vc[i] = join(self.vc[i], set_vc)
        self.seq[i] += 1
        self.snap[i] = None
        waits.append((t, self.seq[i], ins[2]))
        return t

    def _set_flag(self, flag: int, t: int, vc: tuple, op: int) -> None:
        """Record the next set of a flag and wake its waiter."""
        self.flag_sets[flag].append((t, vc, op))
        waiter = self.flag_waiter[flag]
        if waiter is not None:
            self.flag_waiter[flag] = None
            self.push(waiter)

    def _finish_issuer(self, i: int) -> None:
        """Mark issuer ``i`` done; barriers only it was missing can now be released."""
        self.done[i] = True
        for k in sorted(self.arrivals):
            if k not in self.released:
                self._try_release(k)

    # ------------------------------------------------------------------ units

    def _run_unit(self, a: int) -> None:
        """Run a non-pipelined unit's queue until it is empty or waits for a flag not yet set."""
        items = self.items[a]
        n, h = len(items), self.head[a]
        if h >= n:
            return
        avail, ivc, vc_at, end_pm = self.avail[a], self.ivc[a], self.vc_at[a], self.end_pm[a]
        clock, vc, seq, busy, last_iv = (self.clock[a], self.vc[a], self.seq[a], self.busy[a],
                                         self.last_iv[a])
        det, rec, syncs = self.detector, self.records, self.syncs
        flag_sets, flag_waits = self.flag_sets, self.flag_waits
        n_sync = tiles = 0
        while h < n:
            item = items[h]
            t = avail[h]
            if t < clock:
                t = clock
            iv = ivc[h]
            if iv is not last_iv:
                vc = join(vc, iv)
                last_iv = iv
            code = item[0]
            if code == TILE:
                dur = item[1]
                seq += 1
                tiles += 1
                busy += dur
                if det is not None and item[3]:
                    det.access(a, vc, seq, item[2], item[3])
                if rec is not None:
                    rec.append((a, t, t + dur, item[2]))
                clock = t + dur
            elif code == WAIT:
                flag = item[1]
                waits = flag_waits[flag]
                sets = flag_sets[flag]
                if len(waits) >= len(sets):
                    self.flag_waiter[flag] = a
                    break
                set_time, set_vc, _ = sets[len(waits)]
                if syncs is not None:
                    syncs.append((a, t, max(t, set_time), item[2]))
                if set_time > t:
                    t = set_time
                vc = join(vc, set_vc)
                seq += 1
                waits.append((t, seq, item[2]))
                clock = t
                n_sync += 1
            elif code == SET:
                seq += 1
                self._set_flag(item[1], t, with_epoch(vc, a, seq), item[2])
                if syncs is not None:
                    syncs.append((a, t, t, item[2]))
                clock = t
                n_sync += 1
            else:
                seq += 1
                if syncs is not None:
                    syncs.append((a, t, t, item[2]))
                clock = t
                n_sync += 1
            vc_at.append(vc)
            end_pm.append(clock)
            h += 1
        self.head[a], self.clock[a], self.vc[a], self.seq[a] = h, clock, vc, seq
        self.busy[a], self.last_iv[a] = busy, last_iv
        self.sync_ops += n_sync
        self.tile_ops += tiles
        if self.watch[a]:
            self._wake_watchers(a)

    def _run_pipelined(self, a: int) -> None:
        """Run a pipelined unit: ops start one cycle apart and overlap; set_flag/pipe_barrier drain."""
        st = self.pipe[a]
        items = self.items[a]
        while self.head[a] < len(items):
            h = self.head[a]
            item = items[h]
            t = max(self.avail[a][h], self.clock[a])
            if self.ivc[a][h] is not self.last_iv[a]:
                self.vc[a] = join(self.vc[a], self.ivc[a][h])
                self.last_iv[a] = self.ivc[a][h]
            code = item[0]
            if code == WAIT and len(self.flag_waits[item[1]]) >= len(self.flag_sets[item[1]]):
                self.flag_waiter[item[1]] = a
                break
            self.seq[a] += 1
            if code == TILE:
                self._pipelined_tile(a, st, item, t)
            else:
                self._pipelined_sync(a, st, item, t)
            self.vc_at[a].append(self.vc[a])
            self.end_pm[a].append(st.drain)
            self.head[a] = h + 1
        if self.watch[a]:
            self._wake_watchers(a)

    def _pipelined_tile(self, a: int, st: _PipeState, item: tuple, t: int) -> None:
        """Start a tile op on a pipelined unit, checking same-unit hazards since the last drain."""
        end = t + item[1]
        self.tile_ops += 1
        self.busy[a] += max(0, end - max(t, st.covered))
        st.covered = max(st.covered, end)
        st.drain = max(st.drain, end)
        self.clock[a] = t + 1
        for hazard in st.hazards(item[2], item[3]):
            self.findings.add("pipe-hazard", self._hazard_text(a, hazard, item[2]))
        if self.detector is not None and item[3]:
            self.detector.access(a, self.vc[a], self.seq[a], item[2], item[3])
        if self.records is not None:
            self.records.append((a, t, end, item[2]))

    def _pipelined_sync(self, a: int, st: _PipeState, item: tuple, t: int) -> None:
        """set_flag / pipe_barrier drain the pipe first; wait_flag only delays later starts."""
        code, begin = item[0], t
        self.sync_ops += 1
        if code == WAIT:
            flag = item[1]
            waits = self.flag_waits[flag]
            set_time, set_vc, _ = self.flag_sets[flag][len(waits)]
            t = max(t, set_time)
            self.vc[a] = join(self.vc[a], set_vc)
            waits.append((t, self.seq[a], item[2]))
        else:
            t = max(t, st.drain)
            st.window.clear()
            if code == SET:
                self._set_flag(item[1], t, with_epoch(self.vc[a], a, self.seq[a]), item[2])
        self.clock[a] = t
        st.drain = max(st.drain, t)
        if self.syncs is not None:
            self.syncs.append((a, begin, t, item[2]))

    def _hazard_text(self, a: int, earlier: int, later: int) -> str:
        """Detail of a ``pipe-hazard`` violation."""
        ops = self.p.ops
        return (f"{ops[later].loc}: {ops[later].name} on pipelined unit {self.p.agents[a].name} "
                f"conflicts with {ops[earlier].name} at {ops[earlier].loc} with no pipe_barrier "
                f"between them")

    def _wake_watchers(self, a: int) -> None:
        """Wake issuers waiting for agent ``a`` to reach a count of executed ops."""
        done, keep = self.head[a], []
        for need, issuer in self.watch[a]:
            if done >= need:
                self.push(issuer)
            else:
                keep.append((need, issuer))
        self.watch[a] = keep

    # ------------------------------------------------------------------ results

    def _describe(self, op: int, agent: int) -> RaceSide:
        """Report text for one access: op name, location, and the unit it ran on."""
        trace_op = self.p.ops[op]
        info = self.p.agents[agent]
        if info.kind == "issuer":
            unit = trace_op.unit or info.name
            if self.n_issuers > 1:
                unit = f"{unit}@{info.name}"
        else:
            unit = info.name
        return RaceSide(trace_op.name, trace_op.loc, unit)

    def _live_views(self) -> list[int] | None:
        """Per agent b: min over other agents that may still access memory of their vc[b]."""
        live = [a for a in self.accessing if not self._finished(a)]
        views = []
        for b in range(len(self.p.agents)):
            others = [self.vc[c][b] for c in live if c != b]
            views.append(min(others) if others else 1 << 62)
        return views

    @staticmethod
    def _issuer_op_index(ins: tuple) -> int:
        """Index of the trace op behind an issuer instruction (see program.py's layouts)."""
        code = ins[0]
        if code in (COMMIT, ISET, IWAIT, BAR, PRIO):
            return ins[2]
        if code == WAITG:
            return ins[3]
        if code in (ENQ, INLINE):
            return ins[2][2]
        return ins[1]

    def _finished(self, a: int) -> bool:
        """True when agent ``a`` will execute nothing more."""
        if a < self.n_issuers:
            return self.done[a]
        owner = self.p.agents[a].owner
        return self.done[owner] and self.head[a] >= len(self.items[a])

class _PipeState:
    """Bookkeeping of one pipelined unit: covered time, drain time, accesses since the last drain."""

    def __init__(self) -> None:
        self.covered = 0
        self.drain = 0
        self.window: dict[int, list[tuple]] = {}

    def hazards(self, op: int, accesses) -> list[int]:
        """Earlier ops since the last drain whose accesses conflict with these (then record them)."""
        found = []
        for buf, region, write, _ in accesses:
            for region2, write2, op2 in self.window.get(buf, ()):
                if op2 != op and (write or write2) and _overlap(region, region2):
                    found.append(op2)
        for buf, region, write, _ in accesses:
            self.window.setdefault(buf, []).append((region, write, op))
        return list(dict.fromkeys(found))


def _overlap(a, b) -> bool:
    """True when two regions share an element."""
    return all(alo < bhi and blo < ahi for (alo, ahi), (blo, bhi) in zip(a, b, strict=True))


def _memory_users(p: Program) -> tuple[list[int], set[int]]:
    """Agents that touch memory at all (the only ones pruning must respect), and the buffers
    only one agent ever touches (no race is possible on them, so the detector skips them)."""
    users: dict[int, set[int]] = {}
    for i, code in enumerate(p.code):
        for ins in code:
            if ins[0] == INLINE:
                agent = i
            elif ins[0] == ENQ and ins[2][0] == TILE:
                agent = ins[1]
            else:
                continue
            for access in ins[2][3]:
                users.setdefault(access[0], set()).add(agent)
    agents = sorted(set().union(*users.values())) if users else []
    return agents, {buf for buf, who in users.items() if len(who) == 1}


def simulate(trace: Trace, check_races: bool = True, record: bool = False,
             bound: bool = True) -> SimResult:
    """Simulate a trace: timing, races (unless disabled), deadlock and sync violations.

    The cyclic garbage collector is paused meanwhile: the engine allocates millions of small
    tuples and no reference cycles, and full collections over its large lists would dominate.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return Engine(trace, check_races=check_races, record=record, bound=bound).run()
    finally:
        if enabled:
            gc.enable()
