"""Issuers of the engine: walking the program, shared inline units, and issuer-side sync.

An issuer walks its instructions in order, fetching them chunk by chunk from its program's source.
It enqueues ops to unit instances (spending ``issue_cost`` cycles each), runs inline ops itself,
and executes the sync ops placed on it: ``barrier_all``, ``commit_group`` / ``wait_group``,
counter-based barriers, ``setprio`` and flags whose src or dst is the issuer. Every instruction
that needs something not yet computed makes the issuer block, recording why (``block``) for the
deadlock report; whoever produces it wakes the issuer.

Inline units shared by several issuer groups serve requests in time order (ties: higher
``setprio`` priority, then the leading group): an issuer may claim one only when no other group can
still request it earlier; when nothing else can move, the engine lets the earliest waiting request
go (conservative parallel simulation with lookahead).

Per-wave LDS completion (AMD, DESIGN.md §4): an LDS op's register accesses complete for its own
issuer group when the group next touches those registers (the hardware's ``s_waitcnt lgkmcnt``,
which the backend inserts): an inline op whose private-space accesses conflict with an LDS op of
its group not yet awaited first waits for that op (and so for every earlier one on the in-order
LDS queue). Each such LDS op leaves a *mark* on its queue (its end time and clock, as group
commits do); ``lds_out`` holds, per issuer, the ``(count, private accesses)`` not yet awaited.
``local`` barriers and ``barrier_all`` drain the queue and forget them. LDS writes to LDS are
still visible to the other group only through a ``local`` barrier.

Compiled twin: ``native/core.pyx`` runs the issuer walk of clean runs (``NativeEngine``).
"""

from __future__ import annotations

from tilesched.sim.engine.happens_before import join, with_epoch
from tilesched.sim.isa import (
    BALL,
    BAR,
    COMMIT,
    ENQ,
    INLINE,
    ISET,
    IWAIT,
    MARK,
    PRIO,
    WAITG,
    lds_consumed,
    private_accesses,
)

INF = float("inf")


class IssuerWalk:
    """Mixin of :class:`~tilesched.sim.engine.engine.Engine`: running issuers."""

    def _snapshot(self, i: int) -> tuple:
        """The vector clock of what issuer ``i`` has finished (handed to ops it enqueues)."""
        snap = self.snap[i]
        if snap is None:
            snap = self.snap[i] = with_epoch(self.vc[i], i, self.seq[i])
        return snap

    def _run_issuer(self, i: int) -> None:
        """Walk issuer ``i``'s program until it ends or blocks."""
        if self.stepped_aside[i]:
            return  # it resumes when the engine is quiescent (Engine._drain)
        code, pc = self.code[i], self.pc[i]
        n = len(code)
        clock = self.clock[i]
        items, avail, ivc, inwl, worklist = self.items, self.avail, self.ivc, self.inwl, self.worklist
        issue_cost = self.issue_cost
        per_wave, lds_out = self.per_wave, self.lds_out[i]
        progressed = False
        snap = self._snapshot(i)
        while True:
            if pc >= n:
                code = self._fetch(i)
                if code is None:
                    break
                pc, n = 0, len(code)
                continue
            ins = code[pc]
            op = ins[0]
            if op == ENQ:
                agent = ins[1]
                items[agent].append(ins[2])
                avail[agent].append(clock)
                ivc[agent].append(snap)
                if not inwl[agent]:
                    inwl[agent] = True
                    worklist.append(agent)
                if per_wave[agent]:
                    self._lds_enqueued(i, agent, ins[2])
                clock += issue_cost
            elif op == INLINE:
                if lds_out:
                    count = lds_consumed(lds_out, ins[2][3])
                    if count:
                        after = self._lds_wait(i, count, clock)
                        if after is None:
                            break
                        clock = after
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
        if code is None:
            self.code[i], self.pc[i] = [], 0
            if not self.done[i]:
                self._finish_issuer(i)
        else:
            self.code[i] = code
        if progressed and self.arb:
            for other in list(self.arb):
                if other != i:
                    del self.arb[other]
                    self.push(other)

    def _fetch(self, i: int) -> list | None:
        """The issuer's next chunk of instructions (``None`` at the end of its program)."""
        chunk = next(self.sources[i], None)
        if chunk is not None:
            if self.bound is not None:
                self.bound.feed(i, chunk)
            if self.steady is not None:
                self.steady.fetched_chunk(i, chunk)
            if self.progress is not None:
                self.progress.tick(self)
            for kind, detail in self.p.take_violations():
                self.findings.add(kind, detail)
            if len(self.p.flags) > self.flags.count:
                self.flags.grow()
        return chunk

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
            after = self._await_agents(i, self.p.fed[i], clock, "barrier_all")
        elif op == WAITG:
            after = self._wait_group(i, ins, clock)
        elif op == BAR:
            after = self._barrier(i, ins, clock)
        elif op == COMMIT:
            self._commit(ins[1])
            after = clock
        elif op == ISET:
            self._set_flag(ins[1], clock, with_epoch(self.vc[i], i, self.seq[i]), ins[2])
            after = clock
        elif op == IWAIT:
            after = self._issuer_wait(i, ins, clock)
        elif op == PRIO:
            self.prio[i] = ins[1]
            after = clock
        elif op == MARK:
            return self._mark(i, ins, clock)
        else:
            after = clock
        if after is not None:
            self.sync_ops += 1
            self.block[i] = None
            if self.syncs is not None:
                self.syncs.append((i, clock, after, self._issuer_op_index(ins)))
        return after

    def _await_agents(self, i: int, agents, clock: int, why: str) -> int | None:
        """Wait until each agent has executed every op enqueued to it so far.

        Joins their exported clocks into issuer ``i``; ``None`` (and a watch) when not yet done.
        """
        t, vc = clock, self.vc[i]
        for agent in agents:
            need = self.base[agent] + len(self.items[agent])
            if need == 0:
                continue
            if self.base[agent] + self.head[agent] < need:
                self.watch[agent].append((need, i))
                self.block[i] = ("agent", agent, need, why)
                return None
            t = self._met(i, agent, t, self._unit_end(agent))
            vc = join(vc, with_epoch(self.vc[agent], agent, need))
        self._joined(i, vc)
        for agent in agents:
            if self.per_wave[agent]:  # drained: nothing of it is left to await
                self.lds_out[self.p.agents[agent].owner].clear()
                self.marked[agent].clear()
        return t

    def _lds_enqueued(self, i: int, agent: int, item: tuple) -> None:
        """An LDS op of issuer ``i`` touching private buffers: remember it until awaited, and
        have its queue mark when it is done (see the module docstring)."""
        mine = private_accesses(item, self.first_private)
        if mine:
            count = self.base[agent] + len(self.items[agent])
            self.lds_out[i].append((count, mine))
            self.marks[agent].append(count)

    def _lds_wait(self, i: int, count: int, clock: int) -> int | None:
        """Issuer ``i`` consumes what its LDS op number ``count`` touched: it waits for that op
        (``s_waitcnt``); ``None`` (and a watch) when the op has not run yet."""
        agent = self.p.lds_agent[i]
        marked = self.marked[agent]
        reached = marked.get(count)
        if reached is None:
            self.watch[agent].append((count, i))
            self.block[i] = ("agent", agent, count, "LDS result")
            return None
        self.block[i] = None
        end, vc = reached
        self._joined(i, join(self.vc[i], vc))
        out = self.lds_out[i]  # in place: _run_issuer holds it
        out[:] = [x for x in out if x[0] > count]
        for done in [c for c in marked if c <= count]:
            del marked[done]
        return self._met(i, agent, clock, end)

    def _joined(self, i: int, vc: tuple) -> None:
        """Issuer ``i`` now knows ``vc``: a new epoch of its own."""
        self.vc[i] = vc
        self.seq[i] += 1
        self.snap[i] = None

    def _commit(self, agent: int) -> None:
        """``commit_group``: close the open group of an async queue at its current op count."""
        count = self.base[agent] + len(self.items[agent])
        self.groups[agent].append(count)
        if self.base[agent] + self.head[agent] == count:
            self.marked[agent][count] = (self._unit_end(agent),
                                         with_epoch(self.vc[agent], agent, count))
        elif not self.marks[agent] or self.marks[agent][-1] != count:
            self.marks[agent].append(count)
        keep = self.p.max_pending + 1
        committed = self.groups[agent]
        if len(committed) > 2 * keep + 64:
            kept = set(committed[-keep:])  # counts repeat when a group is empty: keep their marks
            for old in committed[:-keep]:
                if old not in kept:
                    self.marked[agent].pop(old, None)
            self.group_base[agent] += len(committed) - keep
            del committed[:-keep]

    def _wait_group(self, i: int, ins: tuple, clock: int) -> int | None:
        """``wait_group``: at most ``pending`` committed groups of the queue may stay incomplete."""
        agent, pending = ins[1], ins[2]
        committed = self.groups[agent]
        oldest_open = len(committed) - pending
        if oldest_open <= 0:
            return clock
        need = committed[oldest_open - 1]
        if need == 0:  # nothing was ever enqueued: an empty wait, still an epoch of its own
            self._joined(i, self.vc[i])
            return clock
        reached = self.marked[agent].get(need)
        if reached is None:
            self.watch[agent].append((need, i))
            self.block[i] = ("agent", agent, need, f"wait_group({pending})")
            return None
        end, vc = reached
        self._joined(i, join(self.vc[i], vc))
        return self._met(i, agent, clock, end)

    def _met(self, i: int, agent: int, t: int, end: int) -> int:
        """Issuer ``i`` at ``t`` waited for agent ``agent`` to be done at ``end``; noted for the
        steady-state rate checks (``steady.py``) when they are on."""
        if self.awaited is not None:
            self.awaited.add((i, agent))
            if end > t:
                self.await_wins.add((i, agent))
        return t if t >= end else end

    def _barrier(self, i: int, ins: tuple, clock: int) -> int | None:
        """Counter-based rendezvous (``local`` first drains the group's LDS ops)."""
        k = self.bar_wait[i]
        if k is None:
            lds = self.p.lds_agent[i]
            if ins[1] and lds is not None:
                drained = self._await_agents(i, (lds,), clock, "local barrier")
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
        self._joined(i, join(self.vc[i], vc))
        self._leave_barrier(k)
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
        if self.barrier_log is not None:
            self.barrier_log[k] = ({j: a[0] for j, a in arrived.items()}, t)
        for j in arrived:
            self.push(j)

    def _leave_barrier(self, k: int) -> None:
        """Forget barrier ``k`` once every group that arrived there has left it."""
        left = self.barrier_left.get(k, 0) + 1
        if left < len(self.arrivals[k]):
            self.barrier_left[k] = left
            return
        self.barrier_left.pop(k, None)
        del self.arrivals[k], self.released[k]

    def _issuer_wait(self, i: int, ins: tuple, clock: int) -> int | None:
        """``wait_flag`` whose dst is the issuer itself (or an inline unit)."""
        flag = ins[1]
        flags = self.flags
        if not flags.ready(flag):
            flags.waiter[flag] = i
            self.block[i] = ("flag", flag, ins[2])
            return None
        set_time, set_vc, _ = flags.take(flag)
        t = max(clock, set_time)
        self._joined(i, join(self.vc[i], set_vc))
        flags.wait(flag, t, self.seq[i], ins[2])
        return t

    def _set_flag(self, flag: int, t: int, vc: tuple, op: int) -> None:
        """Record the next set of a flag and wake its waiter."""
        waiter = self.flags.set(flag, t, vc, op)
        if waiter is not None:
            self.push(waiter)

    def _finish_issuer(self, i: int) -> None:
        """Mark issuer ``i`` done; barriers only it was missing can now be released."""
        self.done[i] = True
        for k in sorted(self.arrivals):
            if k not in self.released:
                self._try_release(k)

    @staticmethod
    def _issuer_op_index(ins: tuple) -> int:
        """The op reference behind an issuer instruction (see program.py's layouts)."""
        code = ins[0]
        if code in (COMMIT, ISET, IWAIT, BAR, PRIO):
            return ins[2]
        if code == WAITG:
            return ins[3]
        if code in (ENQ, INLINE):
            return ins[2][2]
        return ins[1]
