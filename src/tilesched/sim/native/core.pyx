# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# distutils: language = c++
# distutils: extra_compile_args = -O2 -std=c++17
"""Native core of the timing engine, for runs that find nothing wrong (``run.FullRun``).

It executes a compiled :class:`~tilesched.sim.code.program.Program` exactly as ``engine.py``,
``issuers.py``, ``units.py``, ``flags.py`` and ``happens_before.py`` do (same worklist order,
same max-plus times, same vector clocks, same live-event sweeps), with every per-op structure in
C++ instead of Python objects. It only *detects*: at the first race, sync violation, pipe hazard
or deadlock it raises :class:`NeedsPythonEngine`, and the caller runs the pure-Python engine,
which writes the report. So the Python engine stays the one definition of every finding, and
this module only has to agree with it on clean runs (differential tests:
``tests/sim/native/test_native_engine.py``).

Not handled here (the caller uses the Python engine): recording a timeline, steady-state
detection, programs with static violations, regions of more than 4 dimensions.
"""

from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, INT64_MAX
from libcpp.vector cimport vector
from libcpp.deque cimport deque
from libcpp.unordered_map cimport unordered_map
from libcpp.utility cimport pair
from cython.operator cimport dereference as deref, preincrement as inc

from tilesched.sim.isa cimport ENQ, INLINE, ISET, IWAIT, BALL, COMMIT, WAITG, BAR, PRIO, MARK
from tilesched.sim.isa cimport TILE, SET, WAIT
from tilesched.sim.isa import lds_consumed, private_accesses

from tilesched.sim.native.core_state cimport *
from tilesched.sim.native.source_hash cimport TILESCHED_SOURCE_HASH

SOURCE_HASH = TILESCHED_SOURCE_HASH.decode()  # what it was built from (native/sources.py)


class NeedsPythonEngine(Exception):
    """The run met something only the Python engine reports (a race, a violation, a deadlock,
    a pipe hazard) or cannot represent natively; rerun it there."""


cdef enum:
    FLOOR_EVERY = 16384  # worklist rounds between live-event sweeps (engine.py)
    PRUNE_EVERY = 65536  # new history entries between prunes (happens_before.py)
cdef int64_t NO_TIME = INT64_MAX

cdef int _ENQ = ENQ, _INLINE = INLINE, _ISET = ISET, _IWAIT = IWAIT, _BALL = BALL
cdef int _COMMIT = COMMIT, _WAITG = WAITG, _BAR = BAR, _PRIO = PRIO, _MARK = MARK
cdef int _TILE = TILE, _SET = SET, _WAIT = WAIT


cdef class NativeEngine:
    """One run of a compiled program; :meth:`run` returns :meth:`summary`-ready state.

    Python twin: ``tilesched.sim.engine.engine.Engine`` (with its walks in ``issuers.py``,
    ``units.py``, ``flags.py`` and ``happens_before.py``)."""

    cdef object p, sources, race_free, take_violations, py_flags
    cdef public object bound
    cdef public object progress
    cdef list code
    cdef int n, n_iss, issue_cost, check_races, max_pending, flag_count
    cdef vector[int64_t] clock, seq, busy, executed, enqueued, pc_
    cdef vector[VC] vc, snap
    cdef vector[deque[QItem]] queue
    cdef vector[VC] last_iv
    cdef vector[vector[pair[int64_t, int]]] watch
    cdef vector[deque[int64_t]] marks
    cdef vector[unordered_map[int64_t, Mark]] marked
    cdef vector[vector[int64_t]] groups
    cdef vector[int] pipelined, inwl, done
    cdef vector[int] owner, lds_agent, per_wave
    cdef list lds_out  # per issuer: its LDS ops not yet awaited (issuers.py)
    cdef int64_t first_private
    cdef vector[vector[int]] fed
    cdef vector[int64_t] covered, drain
    cdef vector[vector[Win]] window
    cdef deque[int] worklist
    cdef vector[int64_t] prio, bar_count, bar_wait, res_free, res_busy
    cdef vector[pair[int, int64_t]] arb
    cdef int forced
    cdef unordered_map[int64_t, vector[Arrival]] arrivals
    cdef unordered_map[int64_t, Arrival] released
    cdef unordered_map[int64_t, int] barrier_left
    # flags
    cdef vector[deque[PendingSet]] pending
    cdef vector[int64_t] sets, waits, flag_dst
    cdef vector[LastWait] last_wait
    cdef vector[int] waiter, flag_pair
    cdef vector[PairSweep] pairs
    cdef dict pair_index
    # races
    cdef unordered_map[int64_t, BufHist] history
    cdef unordered_map[int64_t, int] skip
    cdef vector[int] accessing
    cdef int64_t entries, next_prune
    cdef vector[Access] accs  # the accesses of the op being checked (reused)
    cdef public int64_t sync_ops, tile_ops

    def __init__(self, program, check_races=True, bound=None):
        p = self.p = program
        self.n = len(p.agents)
        self.n_iss = p.issuer_count
        self.issue_cost = p.machine.issue_cost
        self.check_races = bool(check_races)
        self.bound = bound
        self.progress = None
        self.max_pending = min(p.max_pending, 1 << 30)
        self.race_free = p.memory.race_free
        self.take_violations = p.take_violations
        self.accessing = list(p.memory.accessing)
        self.entries = 0
        self.next_prune = PRUNE_EVERY
        self.sync_ops = self.tile_ops = 0
        self.forced = -1
        self._init_agents()
        self._init_issuers()
        self.py_flags = p.flags
        self.flag_count = 0
        self.pair_index = {}
        self._grow_flags()

    def _init_agents(self):
        cdef int n = self.n
        cdef int a
        self.clock.assign(n, 0)
        self.seq.assign(n, 0)
        self.busy.assign(n, 0)
        self.executed.assign(n, 0)
        self.enqueued.assign(n, 0)
        self.vc.resize(n)
        for a in range(n):
            self.vc[a] = vc_new(n)
        self.queue.resize(n)
        self.last_iv.resize(n)
        self.watch.resize(n)
        self.marks.resize(n)
        self.marked.resize(n)
        self.groups.resize(n)
        self.inwl.assign(n, 0)
        self.covered.assign(n, 0)
        self.drain.assign(n, 0)
        self.window.resize(n)
        cdef int flag
        for agent in self.p.agents:
            flag = 1 if agent.pipelined else 0
            self.pipelined.push_back(flag)
            self.owner.push_back(agent.owner)

    def _init_issuers(self):
        cdef int k = self.n_iss
        p = self.p
        self.sources = [p.chunks(i) for i in range(k)]
        self.code = [[] for _ in range(k)]
        self.pc_.assign(k, 0)
        self.snap.resize(k)
        self.done.assign(k, 0)
        self.prio.assign(k, 0)
        self.bar_count.assign(k, 0)
        self.bar_wait.assign(k, -1)
        self.res_free.assign(len(p.inline_units), 0)
        self.res_busy.assign(len(p.inline_units), 0)
        self.per_wave.assign(self.n, 0)
        self.lds_out = [[] for _ in range(k)]
        self.first_private = p.virtual_stride or len(p.buffer_names)
        for i in range(k):
            self.fed.push_back(list(p.fed[i]))
            lds = p.lds_agent[i]
            self.lds_agent.push_back(-1)
            if lds is not None:
                self.lds_agent[i] = lds
                self.per_wave[lds] = 1

    cdef int _grow_flags(self) except -1:
        """flags.py FlagTable.grow: take in the flags the program interned since."""
        cdef PairSweep empty
        cdef LastWait none
        none.has = False
        while self.flag_count < len(self.py_flags):
            flag = self.py_flags[self.flag_count]
            self.pending.push_back(deque[PendingSet]())
            self.sets.push_back(0)
            self.waits.push_back(0)
            self.last_wait.push_back(none)
            self.waiter.push_back(-1)
            self.flag_dst.push_back(flag.dst)
            index = self.pair_index.get(flag.pair)
            if index is None:
                index = self.pair_index[flag.pair] = self.pairs.size()
                self.pairs.push_back(empty)
            self.pairs[index].flags.push_back(self.flag_count)
            for agent in (flag.src, flag.dst):
                if not _contains(self.pairs[index].agents, agent):
                    self.pairs[index].agents.push_back(agent)
            self.flag_pair.push_back(index)
            self.flag_count += 1
        return 0

    # ------------------------------------------------------------------ driver

    cdef inline void push(self, int agent) noexcept:
        if not self.inwl[agent]:
            self.inwl[agent] = 1
            self.worklist.push_back(agent)

    def run(self):
        """Execute until done; raises :class:`NeedsPythonEngine` when anything needs a report.

        Python twin: ``tilesched.sim.engine.engine.Engine.run``."""
        cdef int i
        for i in range(self.n_iss):
            self.push(i)
        while self._drain() or self._arbitrate():
            pass
        self._finish()

    cdef bint _drain(self) except -1:
        cdef int agent
        cdef int rounds = 0
        while not self.worklist.empty():
            agent = self.worklist.front()
            self.worklist.pop_front()
            self.inwl[agent] = 0
            if agent < self.n_iss:
                self._run_issuer(agent)
            elif self.pipelined[agent]:
                self._run_pipelined(agent)
            else:
                self._run_unit(agent)
            rounds += 1
            if rounds >= FLOOR_EVERY:
                rounds = 0
                self._sweep_flags()
                PyErr_CheckSignals()
        self._sweep_flags()
        return False

    cdef bint _arbitrate(self) except -1:
        """engine.py _arbitrate: the earliest waiting request for a shared inline unit goes."""
        cdef size_t k, best = 0
        if self.arb.empty():
            return False
        for k in range(1, self.arb.size()):
            if _before(self.arb[k], self.arb[best], self.prio):
                best = k
        self.forced = self.arb[best].first
        self.arb.erase(self.arb.begin() + best)
        self.push(self.forced)
        return True

    cdef int64_t _time_floor(self, int a) noexcept:
        if a < self.n_iss or self.executed[a] < self.enqueued[a]:
            return self.clock[a]
        return max(self.clock[a], self.clock[self.owner[a]])

    cdef bint _finished(self, int a) noexcept:
        if a < self.n_iss:
            return self.done[a] != 0
        return self.done[self.owner[a]] != 0 and self.executed[a] >= self.enqueued[a]

    cdef int _finish(self) except -1:
        """Deadlocks and end-of-run flag findings are the Python engine's to report."""
        cdef int a
        for a in range(self.n_iss):
            if not self.done[a]:
                raise NeedsPythonEngine("deadlock")
        for a in range(self.n_iss, self.n):
            if self.executed[a] < self.enqueued[a]:
                raise NeedsPythonEngine("deadlock")
        for a in range(<int>self.pending.size()):
            if not self.pending[a].empty():
                raise NeedsPythonEngine("flag left set")
        return 0

    # ------------------------------------------------------------------ issuers

    cdef VC _snapshot(self, int i) noexcept:
        if vc_null(self.snap[i]):
            self.snap[i] = vc_with(self.vc[i], i, self.seq[i])
        return self.snap[i]

    cdef int _run_issuer(self, int i) except -1:
        cdef list code = self.code[i]
        cdef Py_ssize_t pc = self.pc_[i], n = len(code)
        cdef int64_t clock = self.clock[i]
        cdef bint progressed = False, ended = False
        cdef VC snap = self._snapshot(i)
        cdef tuple ins
        cdef int op, agent
        cdef int64_t after, count
        cdef QItem q
        cdef size_t k
        while True:
            if pc >= n:
                chunk = self._fetch(i)
                if chunk is None:
                    ended = True
                    break
                code = chunk
                pc, n = 0, len(code)
                continue
            ins = <tuple>code[pc]
            op = ins[0]
            if op == _ENQ:
                agent = ins[1]
                self._item(<tuple>ins[2], clock, snap, &q)
                self.queue[agent].push_back(q)
                self.enqueued[agent] += 1
                self.push(agent)
                if self.per_wave[agent]:
                    self._lds_enqueued(i, agent, <tuple>ins[2])
                clock += self.issue_cost
            elif op == _INLINE:
                if self.lds_out[i]:
                    count = lds_consumed(self.lds_out[i], (<tuple>ins[2])[3])
                    if count:
                        after = self._lds_wait(i, count, clock)
                        if after < 0:
                            break
                        clock = after
                if self.n_iss > 1 and self.forced != i and not self._may_use(i, clock):
                    self._request(i, clock)
                    break
                self.forced = -1
                clock = self._inline(i, ins[1], <tuple>ins[2], clock)
                snap = self._snapshot(i)
            elif op == _MARK:
                pass  # a loop boundary: nothing without steady-state detection
            else:
                self.clock[i] = clock
                after = self._issuer_sync(i, ins, op, clock)
                if after < 0:
                    break
                self.sync_ops += 1
                clock = after
                snap = self._snapshot(i)
            pc += 1
            progressed = True
        self.pc_[i] = pc
        self.clock[i] = clock
        if ended:
            self.code[i] = []
            self.pc_[i] = 0
            if not self.done[i]:
                self._finish_issuer(i)
        else:
            self.code[i] = code
        if progressed and not self.arb.empty():
            k = 0
            while k < self.arb.size():
                if self.arb[k].first != i:
                    agent = self.arb[k].first
                    self.arb.erase(self.arb.begin() + k)
                    self.push(agent)
                else:
                    k += 1
        return 0

    cdef object _fetch(self, int i):
        chunk = next(self.sources[i], None)
        if chunk is not None:
            if self.bound is not None:
                self.bound.feed(i, chunk)
            if self.progress is not None:
                self.progress.tick(self)
            if self.take_violations():
                raise NeedsPythonEngine("violation while compiling")
            if len(self.py_flags) > self.flag_count:
                self._grow_flags()
        return chunk

    cdef int _item(self, tuple item, int64_t clock, VC snap, QItem* q) except -1:
        """A queue entry for an enqueued item ``(code, duration or flag, op, accesses)``."""
        q.code = item[0]
        q.x = item[1]
        q.op = item[2]
        q.avail = clock
        q.ivc = snap
        acc = item[3]
        if q.code == _TILE and acc:
            Py_INCREF(acc)
            q.acc = <PyObject*>acc
        else:
            q.acc = NULL
        return 0

    cdef void _request(self, int i, int64_t t) noexcept:
        """``arb[i] = t`` keeping the dict's insertion order."""
        cdef size_t k
        for k in range(self.arb.size()):
            if self.arb[k].first == i:
                self.arb[k].second = t
                return
        self.arb.push_back(pair[int, int64_t](i, t))

    cdef int64_t _inline(self, int i, int res, tuple item, int64_t clock) except -2:
        cdef int64_t start = max(clock, self.res_free[res])
        cdef int64_t dur = item[1]
        cdef int64_t end = start + dur
        self.res_free[res] = end
        self.res_busy[res] += dur
        self.tile_ops += 1
        self.seq[i] += 1
        self.snap[i] = VC()
        acc = item[3]
        if self.check_races and acc:
            self._access(i, self.vc[i], self.seq[i], acc)
        return end

    cdef bint _may_use(self, int i, int64_t t) except -1:
        cdef int j
        cdef int64_t lb
        for j in range(self.n_iss):
            if j == i or self.done[j]:
                continue
            lb = self._request_floor(j, i)
            if lb < t or (lb == t and (self.prio[j] > self.prio[i]
                                       or (self.prio[j] == self.prio[i] and -j > -i))):
                return False
        return True

    cdef int64_t _request_floor(self, int j, int asking) noexcept:
        cdef size_t k
        cdef int64_t b
        for k in range(self.arb.size()):
            if self.arb[k].first == j:
                return self.arb[k].second
        b = self.bar_wait[j]
        if b >= 0 and self.released.count(b) == 0 and not self._arrived(b, asking):
            return NO_TIME
        return self.clock[j]

    cdef bint _arrived(self, int64_t k, int issuer) noexcept:
        cdef size_t m
        if self.arrivals.count(k) == 0:
            return False
        for m in range(self.arrivals[k].size()):
            if self.arrivals[k][m].issuer == issuer:
                return True
        return False

    cdef int64_t _issuer_sync(self, int i, tuple ins, int op, int64_t clock) except -2:
        """One sync instruction on issuer ``i``; -1 when it must block."""
        cdef VC exported
        if op == _BALL:
            return self._await_agents(i, self.fed[i], clock)
        if op == _WAITG:
            return self._wait_group(i, ins[1], ins[2], clock)
        if op == _BAR:
            return self._barrier(i, ins[1], clock)
        if op == _COMMIT:
            self._commit(ins[1])
            return clock
        if op == _ISET:
            exported = vc_with(self.vc[i], i, self.seq[i])
            self._set_flag(ins[1], clock, exported, ins[2])
            return clock
        if op == _IWAIT:
            return self._issuer_wait(i, ins[1], ins[2], clock)
        if op == _PRIO:
            self.prio[i] = ins[1]
        return clock

    cdef int64_t _await_agents(self, int i, vector[int]& agents, int64_t clock) except -2:
        cdef int64_t t = clock, need
        cdef VC v = self.vc[i]
        cdef int agent
        cdef size_t k
        for k in range(agents.size()):
            agent = agents[k]
            need = self.enqueued[agent]
            if need == 0:
                continue
            if self.executed[agent] < need:
                self.watch[agent].push_back(pair[int64_t, int](need, i))
                return -1
            t = max(t, self._unit_end(agent))
            v = vc_join(v, vc_with(self.vc[agent], agent, need))
        self._joined(i, v)
        for k in range(agents.size()):
            agent = agents[k]
            if self.per_wave[agent]:  # drained: nothing of it is left to await
                (<list>self.lds_out[self.owner[agent]]).clear()
                self.marked[agent].clear()
        return t

    cdef int _lds_enqueued(self, int i, int agent, tuple item) except -1:
        """issuers.py _lds_enqueued: remember an LDS op touching private buffers, mark it."""
        mine = private_accesses(item, self.first_private)
        if mine:
            (<list>self.lds_out[i]).append((self.enqueued[agent], mine))
            self.marks[agent].push_back(self.enqueued[agent])
        return 0

    cdef int64_t _lds_wait(self, int i, int64_t count, int64_t clock) except -2:
        """issuers.py _lds_wait: wait for LDS op ``count`` of the issuer's group; -1 blocks."""
        cdef int agent = self.lds_agent[i]
        cdef Mark m
        cdef vector[int64_t] old
        cdef size_t k
        if self.marked[agent].count(count) == 0:
            self.watch[agent].push_back(pair[int64_t, int](count, i))
            return -1
        m = self.marked[agent][count]
        self._joined(i, vc_join(self.vc[i], m.vc))
        out = <list>self.lds_out[i]
        out[:] = [x for x in out if x[0] > count]
        it = self.marked[agent].begin()
        while it != self.marked[agent].end():
            if deref(it).first <= count:
                old.push_back(deref(it).first)
            inc(it)
        for k in range(old.size()):
            self.marked[agent].erase(old[k])
        return max(clock, m.end)

    cdef void _joined(self, int i, VC v) noexcept:
        self.vc[i] = v
        self.seq[i] += 1
        self.snap[i] = VC()

    cdef int64_t _unit_end(self, int a) noexcept:
        return self.drain[a] if self.pipelined[a] else self.clock[a]

    cdef void _commit(self, int agent) noexcept:
        cdef int64_t count = self.enqueued[agent]
        cdef Mark m
        cdef size_t keep, drop, k
        self.groups[agent].push_back(count)
        if self.executed[agent] == count:
            m.end = self._unit_end(agent)
            m.vc = vc_with(self.vc[agent], agent, count)
            self.marked[agent][count] = m
        elif self.marks[agent].empty() or self.marks[agent].back() != count:
            self.marks[agent].push_back(count)
        keep = self.max_pending + 1
        if self.groups[agent].size() > 2 * keep + 64:
            drop = self.groups[agent].size() - keep
            for k in range(drop):
                if not _contains64(self.groups[agent], self.groups[agent][k], drop):
                    self.marked[agent].erase(self.groups[agent][k])
            self.groups[agent].erase(self.groups[agent].begin(),
                                     self.groups[agent].begin() + drop)

    cdef int64_t _wait_group(self, int i, int agent, int64_t pending, int64_t clock) except -2:
        cdef vector[int64_t]* committed = &self.groups[agent]
        cdef int64_t oldest_open = <int64_t>committed.size() - pending
        cdef int64_t need
        cdef Mark m
        if oldest_open <= 0:
            return clock
        need = committed[0][oldest_open - 1]
        if need == 0:
            self._joined(i, self.vc[i])
            return clock
        if self.marked[agent].count(need) == 0:
            self.watch[agent].push_back(pair[int64_t, int](need, i))
            return -1
        m = self.marked[agent][need]
        self._joined(i, vc_join(self.vc[i], m.vc))
        return max(clock, m.end)

    cdef int64_t _barrier(self, int i, bint local, int64_t clock) except -2:
        cdef int64_t k = self.bar_wait[i]
        cdef int64_t drained
        cdef vector[int] lds
        cdef Arrival arrival, rel
        if k < 0:
            if local and self.lds_agent[i] >= 0:
                lds.push_back(self.lds_agent[i])
                drained = self._await_agents(i, lds, clock)
                if drained < 0:
                    return -1
                clock = drained
            k = self.bar_count[i]
            self.bar_count[i] += 1
            self.bar_wait[i] = k
            arrival.issuer = i
            arrival.time = clock
            arrival.vc = vc_with(self.vc[i], i, self.seq[i])
            self.arrivals[k].push_back(arrival)
            self._try_release(k)
        if self.released.count(k) == 0:
            return -1
        self.bar_wait[i] = -1
        rel = self.released[k]
        self._joined(i, vc_join(self.vc[i], rel.vc))
        self._leave_barrier(k)
        return max(clock, rel.time)

    cdef void _try_release(self, int64_t k) noexcept:
        cdef vector[Arrival]* arrived
        cdef int j
        cdef size_t m
        cdef Arrival rel
        if self.released.count(k) or self.arrivals.count(k) == 0:
            return
        arrived = &self.arrivals[k]
        if arrived.empty():
            return
        for j in range(self.n_iss):
            if not self.done[j] and not self._arrived(k, j):
                return
        rel.issuer = -1
        rel.time = arrived[0][0].time
        rel.vc = arrived[0][0].vc
        for m in range(arrived.size()):
            rel.time = max(rel.time, arrived[0][m].time)
            rel.vc = vc_join(rel.vc, arrived[0][m].vc)
        self.released[k] = rel
        for m in range(arrived.size()):
            self.push(arrived[0][m].issuer)

    cdef void _leave_barrier(self, int64_t k) noexcept:
        cdef int left = 1
        if self.barrier_left.count(k):
            left = self.barrier_left[k] + 1
        if left < <int>self.arrivals[k].size():
            self.barrier_left[k] = left
            return
        self.barrier_left.erase(k)
        self.arrivals.erase(k)
        self.released.erase(k)

    cdef int64_t _issuer_wait(self, int i, int flag, int64_t op, int64_t clock) except -2:
        cdef PendingSet s
        cdef int64_t t
        if self.pending[flag].empty():
            self.waiter[flag] = i
            return -1
        s = self.pending[flag].front()
        t = max(clock, s.time)
        self._joined(i, vc_join(self.vc[i], s.vc))
        self._flag_wait(flag, t, self.seq[i], op)
        return t

    cdef int _set_flag(self, int flag, int64_t t, VC v, int64_t op) except -1:
        """flags.py FlagTable.set + wake the waiter."""
        cdef PendingSet s
        cdef int w
        s.time = t
        s.vc = v
        s.op = op
        if self.pending[flag].empty() and self.sets[flag]:
            self._judge(flag, s)
        self.pending[flag].push_back(s)
        self.sets[flag] += 1
        w = self.waiter[flag]
        self.waiter[flag] = -1
        if w >= 0:
            self.push(w)
        return 0

    cdef int _flag_wait(self, int flag, int64_t t, int64_t epoch, int64_t op) except -1:
        """flags.py FlagTable.wait: consume the oldest pending set."""
        cdef PendingSet s = self.pending[flag].front()
        cdef LastWait w
        cdef Ev ev
        self.pending[flag].pop_front()
        w.has = True
        w.time = t
        w.epoch = epoch
        w.op = op
        w.set_op = s.op
        self.waits[flag] += 1
        self.last_wait[flag] = w
        ev.t = s.time
        ev.cls = 1
        ev.delta = 1
        self.pairs[self.flag_pair[flag]].events.push_back(ev)
        ev.t = t
        ev.cls = 2 if t == s.time else 0
        ev.delta = -1
        self.pairs[self.flag_pair[flag]].events.push_back(ev)
        if not self.pending[flag].empty():
            self._judge(flag, self.pending[flag].front())
        return 0

    cdef int _judge(self, int flag, PendingSet& new_set) except -1:
        cdef LastWait* w = &self.last_wait[flag]
        if not w.has or w.epoch > vc_at(new_set.vc, self.flag_dst[flag]):
            raise NeedsPythonEngine("flag reuse")
        return 0

    cdef int _sweep_flags(self) except -1:
        """flags.py LiveEvents.sweep_all with the engine's time floor."""
        cdef size_t k, m
        cdef int64_t frontier, f
        cdef PairSweep* sweep
        for k in range(self.pairs.size()):
            sweep = &self.pairs[k]
            if sweep.events.size() < sweep.limit:
                continue
            frontier = NO_TIME
            for m in range(sweep.agents.size()):
                frontier = min(frontier, self._time_floor(sweep.agents[m]))
            for m in range(sweep.flags.size()):
                f = sweep.flags[m]
                if not self.pending[f].empty():
                    frontier = min(frontier, self.pending[f].front().time)
            sweep.sweep(frontier, False)
        return 0

    cdef void _finish_issuer(self, int i) noexcept:
        """Mark issuer ``i`` done; barriers only it was missing can now be released."""
        cdef vector[int64_t] ks
        cdef size_t k
        cdef unordered_map[int64_t, vector[Arrival]].iterator it = self.arrivals.begin()
        self.done[i] = 1
        while it != self.arrivals.end():
            if self.released.count(deref(it).first) == 0:
                ks.push_back(deref(it).first)
            inc(it)
        _sort64(ks)
        for k in range(ks.size()):
            self._try_release(ks[k])

    # ------------------------------------------------------------------ units

    cdef int _run_unit(self, int a) except -1:
        cdef deque[QItem]* q = &self.queue[a]
        cdef int64_t clock = self.clock[a], seq = self.seq[a], busy = self.busy[a]
        cdef int64_t t, stop
        cdef VC v = self.vc[a]
        cdef PendingSet s
        cdef QItem* item
        cdef int flag
        if q.empty():
            return 0
        while True:
            stop = self.marks[a].front() if not self.marks[a].empty() else NO_TIME
            while not q.empty() and self.executed[a] < stop:
                item = &q.front()
                t = item.avail if item.avail > clock else clock
                if not vc_same(item.ivc, self.last_iv[a]):
                    v = vc_join(v, item.ivc)
                    self.last_iv[a] = item.ivc
                if item.code == _TILE:
                    seq += 1
                    self.tile_ops += 1
                    busy += item.x
                    if item.acc != NULL:
                        if self.check_races:
                            self._access(a, v, seq, <object>item.acc)
                        Py_DECREF(<object>item.acc)
                        item.acc = NULL
                    clock = t + item.x
                elif item.code == _WAIT:
                    flag = item.x
                    if self.pending[flag].empty():
                        self.waiter[flag] = a
                        break
                    s = self.pending[flag].front()
                    if s.time > t:
                        t = s.time
                    v = vc_join(v, s.vc)
                    seq += 1
                    self.seq[a] = seq
                    self._flag_wait(flag, t, seq, item.op)
                    clock = t
                    self.sync_ops += 1
                elif item.code == _SET:
                    seq += 1
                    self._set_flag(item.x, t, vc_with(v, a, seq), item.op)
                    clock = t
                    self.sync_ops += 1
                else:
                    seq += 1
                    clock = t
                    self.sync_ops += 1
                q.pop_front()
                self.executed[a] += 1
            if self.marks[a].empty() or self.executed[a] != self.marks[a].front():
                break
            if not q.empty() and self.executed[a] < stop:
                break
            self._reach_mark(a, clock, v)
        self.clock[a], self.vc[a], self.seq[a], self.busy[a] = clock, v, seq, busy
        if not self.watch[a].empty():
            self._wake_watchers(a)
        return 0

    cdef void _reach_mark(self, int a, int64_t end, VC v) noexcept:
        cdef int64_t count = self.marks[a].front()
        cdef Mark m
        self.marks[a].pop_front()
        m.end = end
        m.vc = vc_with(v, a, count)
        self.marked[a][count] = m

    cdef int _run_pipelined(self, int a) except -1:
        cdef deque[QItem]* q = &self.queue[a]
        cdef QItem* item
        cdef int64_t t, end
        cdef PendingSet s
        while not q.empty():
            item = &q.front()
            t = max(item.avail, self.clock[a])
            if not vc_same(item.ivc, self.last_iv[a]):
                self.vc[a] = vc_join(self.vc[a], item.ivc)
                self.last_iv[a] = item.ivc
            if item.code == _WAIT and self.pending[item.x].empty():
                self.waiter[item.x] = a
                break
            self.seq[a] += 1
            if item.code == _TILE:
                end = t + item.x
                self.tile_ops += 1
                self.busy[a] += max(<int64_t>0, end - max(t, self.covered[a]))
                self.covered[a] = max(self.covered[a], end)
                self.drain[a] = max(self.drain[a], end)
                self.clock[a] = t + 1
                if item.acc != NULL:
                    self._pipe_hazards(a, item.op, <object>item.acc)
                    if self.check_races:
                        self._access(a, self.vc[a], self.seq[a], <object>item.acc)
                    Py_DECREF(<object>item.acc)
                    item.acc = NULL
            else:
                self.sync_ops += 1
                if item.code == _WAIT:
                    s = self.pending[item.x].front()
                    t = max(t, s.time)
                    self.vc[a] = vc_join(self.vc[a], s.vc)
                    self._flag_wait(item.x, t, self.seq[a], item.op)
                else:
                    t = max(t, self.drain[a])
                    self.window[a].clear()
                    if item.code == _SET:
                        self._set_flag(item.x, t, vc_with(self.vc[a], a, self.seq[a]), item.op)
                self.clock[a] = t
                self.drain[a] = max(self.drain[a], t)
            q.pop_front()
            self.executed[a] += 1
            if not self.marks[a].empty() and self.executed[a] == self.marks[a].front():
                self._reach_mark(a, self.drain[a], self.vc[a])
        if not self.watch[a].empty():
            self._wake_watchers(a)
        return 0

    cdef int _pipe_hazards(self, int a, int64_t op, object accesses) except -1:
        """units.py PipeState.hazards: any conflict since the last drain is a finding."""
        cdef vector[Access]* accs = &self.accs
        cdef Win w
        cdef size_t k, m
        _parse_accesses(accesses, accs[0])
        for k in range(accs.size()):
            for m in range(self.window[a].size()):
                w = self.window[a][m]
                if (w.buf == accs[0][k].buf and w.op != op and (accs[0][k].write or w.write)
                        and region_overlap(accs[0][k].r, w.r)):
                    raise NeedsPythonEngine("pipe hazard")
        for k in range(accs.size()):
            w.buf = accs[0][k].buf
            w.write = accs[0][k].write
            w.op = op
            w.r = accs[0][k].r
            self.window[a].push_back(w)
        return 0

    cdef void _wake_watchers(self, int a) noexcept:
        cdef vector[pair[int64_t, int]] keep
        cdef size_t k
        cdef int64_t done = self.executed[a]
        for k in range(self.watch[a].size()):
            if done >= self.watch[a][k].first:
                self.push(self.watch[a][k].second)
            else:
                keep.push_back(self.watch[a][k])
        self.watch[a].swap(keep)

    # ------------------------------------------------------------------ races

    cdef int _access(self, int agent, VC v, int64_t epoch, object accesses) except -1:
        """happens_before.py RaceDetector.access, detecting only: a race raises."""
        cdef size_t k, m, mine
        cdef BufHist* per
        cdef AgentHist* h
        cdef AgentHist fresh
        cdef int64_t limit
        cdef Access* acc
        self._checked_accesses(accesses)
        for k in range(self.accs.size()):
            acc = &self.accs[k]
            per = &self.history[acc.buf]
            mine = per.per.size()
            for m in range(per.per.size()):
                h = &per.per[m]
                if h.agent == agent:
                    mine = m
                    continue
                limit = vc_at(v, h.agent)
                if h.writes.newest > limit and h.writes.conflicts(acc.r, limit):
                    raise NeedsPythonEngine("race")
                if acc.write and h.reads.newest > limit and h.reads.conflicts(acc.r, limit):
                    raise NeedsPythonEngine("race")
            if mine == per.per.size():
                fresh.agent = agent
                per.per.push_back(fresh)
            h = &per.per[mine]
            if acc.write:
                self.entries += h.writes.put(acc.r, epoch)
            else:
                self.entries += h.reads.put(acc.r, epoch)
        if self.entries >= self.next_prune:
            self._prune()
        return 0

    cdef int _checked_accesses(self, object accesses) except -1:
        """The accesses of one op to buffers a race can touch, parsed into ``self.accs``."""
        cdef int64_t buf
        self.accs.clear()
        for entry in <tuple>accesses:
            buf = (<tuple>entry)[0]
            if not self._skipped(buf):
                _append_access(<tuple>entry, self.accs)
        return 0

    cdef bint _skipped(self, int64_t buf) except -1:
        """Buffers no race can touch (``MemoryUse.race_free``), asked once per buffer."""
        if self.skip.count(buf):
            return self.skip[buf] != 0
        cdef int found = 0
        if buf in self.race_free:
            found = 1
        self.skip[buf] = found
        return found != 0

    cdef int _prune(self) except -1:
        """happens_before.py RaceDetector.prune (memory only: pruned entries cannot race)."""
        cdef vector[int64_t] views
        cdef int b, c
        cdef size_t m
        cdef int64_t floor, best
        cdef AgentHist* h
        for b in range(self.n):
            best = 1 << 62
            for c in self.accessing:
                if c != b and not self._finished(c):
                    best = min(best, vc_at(self.vc[c], b))
            views.push_back(best)
        cdef unordered_map[int64_t, BufHist].iterator it = self.history.begin()
        self.entries = 0
        while it != self.history.end():
            for m in range(deref(it).second.per.size()):
                h = &deref(it).second.per[m]
                floor = views[h.agent]
                if floor > 0:
                    self.entries += h.writes.keep_after(floor) + h.reads.keep_after(floor)
            inc(it)
        self.next_prune = self.entries + PRUNE_EVERY
        return 0

    # ------------------------------------------------------------------ results

    def summary(self):
        """What ``outcome.native_result`` needs: cycles, busy time, counts, live-event peaks.

        Python twin: ``tilesched.sim.engine.outcome.build_result``."""
        cdef int a
        cdef size_t k
        ends = [self.clock[a] for a in range(self.n_iss)]
        ends += [self._unit_end(a) for a in range(self.n_iss, self.n) if self.executed[a]]
        ends += [self.res_free[k] for k in range(self.res_free.size())]
        peaks = {}
        for name, index in self.pair_index.items():
            self.pairs[index].sweep(NO_TIME, True)
            peaks[name] = self.pairs[index].peak
        return {"cycles": max(ends, default=0), "busy": [self.busy[a] for a in range(self.n)],
                "res_busy": [self.res_busy[k] for k in range(self.res_busy.size())],
                "bar_count": [self.bar_count[a] for a in range(self.n_iss)],
                "sync_ops": self.sync_ops, "tile_ops": self.tile_ops, "peaks": peaks}

    @property
    def clocks(self):
        """Every agent's current time (for an interrupted run's report).

        Python twin: ``tilesched.sim.engine.engine.Engine.clock``."""
        return [self.clock[a] for a in range(self.n)]

    def __dealloc__(self):
        cdef size_t a
        for a in range(self.queue.size()):
            while not self.queue[a].empty():
                if self.queue[a].front().acc != NULL:
                    Py_DECREF(<object>self.queue[a].front().acc)
                self.queue[a].pop_front()



cdef inline bint _before(pair[int, int64_t]& a, pair[int, int64_t]& b,
                         vector[int64_t]& prio) noexcept:
    """Arbitration order: earlier request, then higher priority, then lower issuer index."""
    if a.second != b.second:
        return a.second < b.second
    if prio[a.first] != prio[b.first]:
        return prio[a.first] > prio[b.first]
    return a.first < b.first


cdef inline bint _contains(vector[int]& v, int x) noexcept:
    cdef size_t k
    for k in range(v.size()):
        if v[k] == x:
            return True
    return False


cdef inline bint _contains64(vector[int64_t]& v, int64_t x, size_t start) noexcept:
    """``x`` among ``v[start:]``."""
    cdef size_t k
    for k in range(start, v.size()):
        if v[k] == x:
            return True
    return False


cdef int _parse_accesses(object accesses, vector[Access]& out) except -1:
    """``(buffer, region, is_write, key)`` tuples -> :c:type:`Access` (at most 4 dimensions)."""
    out.clear()
    for entry in <tuple>accesses:
        _append_access(<tuple>entry, out)
    return 0


cdef int _append_access(tuple entry, vector[Access]& out) except -1:
    cdef Access acc
    cdef int d
    cdef tuple region = <tuple>entry[1]
    cdef tuple span
    if len(region) > 4:
        raise NeedsPythonEngine("region of more than 4 dimensions")
    acc.buf = entry[0]
    acc.write = bool(entry[2])
    acc.r.nd = len(region)
    for d in range(acc.r.nd):
        span = <tuple>region[d]
        acc.r.v[2 * d] = span[0]
        acc.r.v[2 * d + 1] = span[1]
    out.push_back(acc)
    return 0
