"""Steady-state simulation: skip whole periods of a loop whose state repeats, exactly.

At the start of each iteration of an ``scf.for`` the leading issuer group steps aside until every
other agent has run as far as it can (``Engine._mark``): the engine is then *quiescent* at a loop
boundary, a well-defined point of the run. There :class:`SteadyState` takes a *cut*: a canonical
form of everything that influences the rest of the run (docs/simulator.md, "Steady state"):

- every time relative to the clock of the agent that produced it (an agent's clock moves by its
  own ``lambda`` per period: an issuer that only enqueues runs ahead of its units at its own rate);
- every epoch (vector-clock component, race-history entry) by its rank among its agent's epochs
  (epochs are only compared with epochs of the same agent, and new ones exceed all stored ones);
- every region relative to the iteration (``loop_analysis`` proves how regions move), every op
  reference relative to the program position, every count relative to its agent's;
- the discrete rest: queues, pending flag sets, groups, barriers, blocked agents, positions.

When the cut at iteration ``j`` equals the cut at ``j - k`` (``k`` a multiple of the loop's input
period), and the interactions between agents whose clocks moved at different rates were all
decided the same way they will be decided again (the slower side never won a max), the evolution
from ``j`` repeats the one from ``j - k`` shifted, period after period. The controller then jumps
``m`` whole periods: clocks move by ``m * lambda``, epochs and counts by ``m * mu``, regions and op
references by ``m`` periods, counters (ops, busy time, race and violation counts) by ``m`` times
their increase over the observed period, the critical path by a max-plus matrix power; the
lowering continues at iteration ``j + m k``. The tail and everything after the loop are simulated.

Where no cut repeats within the budget, or the loop is not analyzable, the loop is simulated in
full (``--max-ops`` bounds that).

No compiled twin: steady-state runs use the Python engine (and the Python bound tracker,
whose internals a jump advances).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.ir.affine import index_values
from tilesched.ir.text import location_of
from tilesched.sim.engine.steady_maps import Canonical, NotHere, Shift
from tilesched.sim.isa import ITER, MARK, MIN_REMAINING, VIRTUAL_STRIDE, WAIT
from tilesched.sim.lowering.loop_analysis import analyze_loop
from tilesched.sim.lowering.lowered import View, plain_attr
from tilesched.sim.lowering.periodic import Unanalyzable

MAX_CUTS = 256  # cuts tried per loop segment before it is simulated in full
GROWTH = 12  # cuts in a row with more state than the one before: give up (a leak)
MAX_RECORDED = 1 << 20  # instructions a loop's cuts keep for its critical-path replay


@dataclass
class LoopReport:
    """One extrapolated loop segment (``sim --json`` ``steady_state``)."""

    loc: str
    period: int
    cycles_per_period: int
    transient_iterations: int
    skipped_iterations: int

    def to_json(self) -> dict:
        return {"loop": self.loc, "period": self.period,
                "cycles_per_period": self.cycles_per_period,
                "transient_iterations": self.transient_iterations,
                "skipped_iterations": self.skipped_iterations}


@dataclass
class _Watch:
    """Cuts taken in one segment of one execution of a loop."""

    frame: object
    segment: object = None
    reason: str | None = None  # why the loop is simulated in full
    retry_at: int | None = None  # ... up to this iteration (the segment's end), None: to its end
    simulated: tuple = ()  # (iteration, ops simulated so far) at the latest boundaries
    cuts: dict = field(default_factory=dict)  # canonical key -> the latest _Cut with it
    history: list = field(default_factory=list)  # the cuts, oldest first
    sizes: list = field(default_factory=list)  # how much state each cut held
    tries: int = 0
    start_position: int = 0
    positions: dict = field(default_factory=dict)  # iteration -> program position at its start
    # what happened since this loop's previous cut, cuts of nested loops and their skips
    # included (SteadyState._flush): per issuer the chunks fetched (and PathJumps), the
    # (issuer, agent) pairs awaited and those where the agent's time won
    chunks: list | None = field(default_factory=list)  # None: more than MAX_RECORDED
    recorded: int = 0  # instructions in chunks
    awaited: set = field(default_factory=set)
    await_wins: set = field(default_factory=set)


@dataclass
class _Cut:
    n: int
    numbers: dict
    chunks: list | None  # per issuer: instruction chunks fetched since the previous cut
    size: int  # instructions in them
    clocks: list
    seqs: list
    awaited: set = field(default_factory=set)  # (issuer, agent) awaited since the previous cut
    await_wins: set = field(default_factory=set)  # ... where the agent's time won
    times: list = field(default_factory=list)  # every time value, in walk order


class SteadyState:
    """Watches loop boundaries of a streamed program and skips periodic stretches."""

    def __init__(self, engine, program, enabled: bool = True):
        self.e = engine
        self.p = program
        self.enabled = enabled
        self.watches: dict[tuple, _Watch] = {}
        self.reports: list[LoopReport] = []
        self.unsteady: dict[str, str] = {}  # loop loc -> why it was simulated in full
        self.fetched = [[] for _ in range(engine.n_issuers)]  # chunks since the last cut
        self.recording = False
        self.skipped_ops = 0
        self.dead = engine.dead  # unit agents blocked for good (_bury)
        self._settable = None  # (pair, event) of every set_flag in the function (None: any)
        program.why_not_steady = lambda op: self.unsteady.get(str(location_of(op) or "?"))

    # ------------------------------------------------------------------ hooks

    def summary(self) -> list[dict]:
        """``sim --json`` ``steady_state``: one entry per extrapolated loop (the first time it
        was extrapolated, and how often and how many iterations in all)."""
        loops: dict[str, dict] = {}
        for report in self.reports:
            entry = loops.get(report.loc)
            if entry is None:
                entry = loops[report.loc] = {**report.to_json(), "extrapolations": 0}
                entry["skipped_iterations"] = 0
            entry["extrapolations"] += 1
            entry["skipped_iterations"] += report.skipped_iterations
        return list(loops.values())

    def fetched_chunk(self, issuer: int, chunk: list) -> None:
        """The engine fetched a chunk (kept while a loop is watched, for the critical path)."""
        if self.recording:
            self.fetched[issuer].append(chunk)

    def boundary(self, issuer: int) -> None:
        """Issuer ``issuer`` is about to leave a loop-iteration mark with the engine quiescent."""
        e = self.e
        ins = e.code[issuer][e.pc[issuer]]
        if not self.enabled or ins[0] != MARK or ins[1] != ITER:
            return
        frame, n = ins[4], ins[3]
        stream = self.p.stream
        if stream.next[issuer] != stream.first + len(stream.chunks):
            return  # another group has lowered further: only the leading group cuts
        watch = self._watch(frame, n)
        watch.positions[n] = stream.chunks[-1].base + len(stream.chunks[-1].ops)
        watch.simulated = (*watch.simulated[-1:], (n, self.p.simulated))
        if watch.reason is not None:
            self._refuse_early(watch, n)
            return
        if n >= watch.segment.end - MIN_REMAINING:
            return
        self._bury()
        self._cut(watch, issuer, n)

    # ------------------------------------------------------------------ watching loops

    def _watch(self, frame, n: int) -> _Watch:
        key = (frame.loop, frame.execution)
        watch = self.watches.get(key)
        if watch is None:
            for old in [k for k in self.watches if k[0] == frame.loop]:
                del self.watches[old]
            watch = self.watches[key] = _Watch(frame)
        if watch.reason is not None and watch.retry_at is not None and n >= watch.retry_at:
            watch.reason = watch.retry_at = None  # that segment is over: try the next one
            self.recording = True
        if watch.reason is None and (watch.segment is None or n >= watch.segment.end):
            self._analyze(watch, frame, n)
        return watch

    def _analyze(self, watch: _Watch, frame, n: int) -> None:
        """Prove the input periodic from iteration ``n`` on (a new segment: cuts restart)."""
        lowering = self.p.lowering
        try:
            watch.segment = analyze_loop(frame.op, frame.lb, frame.step, frame.trips, n,
                                         lowering.env, View)
        except Unanalyzable as why:
            self._give_up(watch, f"its iterations cannot be shown periodic: {why}")
            return
        for buf, shift in watch.segment.shift.items():
            if shift is None and self._relevant(buf):
                self._give_up(watch, f"buffer {lowering.buffers[buf].name} is accessed with "
                              f"offsets that move differently", watch.segment.end)
                return
        watch.cuts.clear()
        watch.tries = 0
        watch.start_position = self.p.stream.chunks[-1].base + len(self.p.stream.chunks[-1].ops)

    def _relevant(self, buf: int) -> bool:
        """Do the instructions keep any access to ``buf``?"""
        dropped = self.p.use.dropped
        groups = range(-1, self.e.n_issuers)
        return any((buf if g < 0 else buf + VIRTUAL_STRIDE * (g + 1)) not in dropped
                   for g in groups)

    def _refuse_early(self, watch: _Watch, n: int) -> None:
        """A loop simulated in full whose remaining iterations (of the segment, or of this
        execution of the loop) would take more than ``--max-ops`` at the rate of its latest
        iteration: the ``--max-ops`` error now rather than after simulating up to the limit."""
        p = self.p
        if p.max_ops is None or len(watch.simulated) < 2:
            return
        (before, ops_before), (now, ops_now) = watch.simulated
        if now != before + 1:
            return
        end = watch.retry_at if watch.retry_at is not None else watch.frame.trips
        if p.simulated + (ops_now - ops_before) * (end - n) > p.max_ops:
            raise p._too_many_ops()

    def _give_up(self, watch: _Watch, reason: str, until: int | None = None) -> None:
        """Simulate the loop in full (up to iteration ``until``, the end of a segment the
        reason is about; ``None``: to the end of this execution of the loop)."""
        watch.reason, watch.retry_at = reason, until
        self.unsteady[str(location_of(watch.frame.op) or "?")] = reason
        self.recording = any(w.reason is None for w in self.watches.values())

    # ------------------------------------------------------------------ dead agents

    def _bury(self) -> None:
        """Find unit agents blocked for good: waiting for a flag whose src is such an agent
        (its queued sets never run) or that no ``set_flag`` of the function names (so no op the
        program can still execute sets it). Such an agent never runs again: only how many ops
        are enqueued to it still matters (``len``), so its queue stops storing them
        (:class:`_Sink`). Full simulation reaches the same deadlock; what is left of the run
        (the agents still alive) can then repeat and be extrapolated."""
        e = self.e
        flags = e.flags
        before = len(self.dead)
        changed = True
        while changed:
            changed = False
            for agent in e.p.agents[e.n_issuers:]:
                a = agent.index
                if a in self.dead or a in e.pipe:
                    continue
                h, items = e.head[a], e.items[a]
                if h >= list.__len__(items) or items[h][0] != WAIT:
                    continue
                f = items[h][1]
                if flags.pending[f] or flags.waiter[f] != a:
                    continue
                flag = e.p.flags[f]
                if flag.src in self.dead or not self._may_be_set(flag):
                    self._kill(a)
                    changed = True
        if len(self.dead) > before:
            # op references and regions older than this point stay as they are in the cuts
            # (the dead agents' never move again): the segments' cuts start over
            last = self.p.stream.chunks[-1]
            for watch in self.watches.values():
                watch.start_position = last.base + len(last.ops)
                watch.cuts.clear()

    def _may_be_set(self, flag) -> bool:
        """Does a ``set_flag`` of the function name this flag (pair and event)?"""
        if self._settable is None:
            self._settable = set()
            for op in self.p.lowering.body.walk():
                if op.name != "sync.set_flag":
                    continue
                props = {name: plain_attr(attr) for name, attr in op.properties.items()}
                pair = f"{props.get('src')}->{props.get('dst')}"
                event = props.get("event")
                if isinstance(event, int):
                    self._settable.add((pair, event))
                    continue
                # a slot-indexed id (an index operand): every value it can take, if bounded
                values = index_values(op.operands[0]) if op.operands else None
                for value in values if values is not None else (None,):
                    self._settable.add((pair, value))
        return ((flag.pair, flag.event) in self._settable
                or (flag.pair, None) in self._settable)

    def _kill(self, a: int) -> None:
        e = self.e
        self.dead.add(a)
        h = e.head[a]
        for lists in (e.items, e.avail, e.ivc):
            kept = _Sink(lists[a][:h + 1])
            kept.dropped = list.__len__(lists[a]) - (h + 1)
            lists[a] = kept

    # ------------------------------------------------------------------ cuts

    def _open_watches(self, leader: int, watch: _Watch) -> list[_Watch]:
        """``watch`` and the watches of the loops around it still being cut (their frames are
        in the leader's current chunk)."""
        stream = self.p.stream
        chunk = stream.chunks[stream.next[leader] - 1 - stream.first]
        frames = [w[0] for w in chunk.where]
        out = [watch]
        for w in self.watches.values():
            if w is not watch and w.reason is None and any(f is w.frame for f in frames):
                out.append(w)
        return out

    def _flush(self, watches: list[_Watch]) -> None:
        """Hand what was recorded since the last cut (of any loop) to ``watches``: a loop's
        period spans the cuts and skips of the loops nested in it."""
        e = self.e
        size = sum(len(chunk) for chunks in self.fetched for chunk in chunks)
        for w in watches:
            w.recorded += size
            if w.recorded > MAX_RECORDED:
                w.chunks = None  # too much to keep: no critical-path replay over this period
            elif w.chunks is not None:
                if not w.chunks:
                    w.chunks = [[] for _ in range(e.n_issuers)]
                for mine, chunks in zip(w.chunks, self.fetched, strict=True):
                    mine.extend(chunks)
            w.awaited |= e.awaited
            w.await_wins |= e.await_wins
        for chunks in self.fetched:
            chunks.clear()
        e.awaited.clear()
        e.await_wins.clear()

    def _cut(self, watch: _Watch, leader: int, n: int) -> None:
        e = self.e
        if any(e.lds_out):
            return  # LDS results a group has yet to await (issuers.py) are not part of a cut
        watch.tries += 1
        if watch.tries > MAX_CUTS:
            self._give_up(watch, f"its state did not repeat within {MAX_CUTS} iterations",
                          watch.segment.end)
            return
        if e.detector is not None:
            e.detector.prune()
        self._forget_dead_writes(watch, n)
        view = Canonical(self, watch, leader, n)
        try:
            key = view.key()
        except NotHere:
            return
        self._flush(self._open_watches(leader, watch))
        cut = _Cut(n, _numbers(e), watch.chunks, watch.recorded, list(e.clock), list(e.seq),
                   watch.awaited, watch.await_wins, view.times)
        watch.chunks, watch.recorded, watch.awaited, watch.await_wins = [], 0, set(), set()
        watch.history.append(cut)
        if len(watch.history) > MAX_CUTS:
            del watch.history[0]
        kept = 0
        for old in reversed(watch.history):  # the oldest cuts' chunks go first
            kept += old.size
            if kept > MAX_RECORDED and old.chunks is not None:
                old.chunks = None
        self.recording = True
        earlier = watch.cuts.get(key)
        if earlier is None:
            watch.cuts[key] = cut
            watch.sizes.append(view.size)
            recent = watch.sizes[-GROWTH - 1:]
            if len(recent) > GROWTH and all(a < b for a, b in zip(recent, recent[1:], strict=False)):
                self._give_up(watch, "its state grows every iteration (something accumulates: "
                              "a flag set and not waited for, a queue that does not drain, or "
                              "regions written and never overwritten)")
            return
        self._try_skip(watch, earlier, cut, leader, n, view)
        watch.cuts[key] = cut

    def _forget_dead_writes(self, watch: _Watch, n: int) -> None:
        """Drop critical-path writes no later read can reach (a moving workspace's old rows):
        they cannot change the bound, and they would make the state grow every iteration.
        Only for a loop not nested in another, on buffers nothing outside it reads."""
        bound = self.e.bound
        if bound is None or bound.paths is None or len(self.p.lowering.frames) != 1:
            return
        segment, loop = watch.segment, watch.frame
        for path in bound.paths:
            for buf, written in path.writers.items():
                root = buf % VIRTUAL_STRIDE if buf >= VIRTUAL_STRIDE else buf
                if not segment.shift.get(root) or self.p.use.read_outside(root, loop.op):
                    continue
                for region in written.regions():
                    if not segment.may_read(root, region, n, loop.trips):
                        written._remove(region)

    def _try_skip(self, watch: _Watch, earlier: _Cut, cut: _Cut, leader: int, n: int,
                  view: Canonical) -> None:
        e = self.e
        k = n - earlier.n
        segment = watch.segment
        lam = [a - b for a, b in zip(cut.clocks, earlier.clocks, strict=True)]
        mu = [a - b for a, b in zip(cut.seqs, earlier.seqs, strict=True)]
        between = [c for c in watch.history if earlier.n < c.n <= n]
        awaited = set().union(*(c.awaited for c in between))
        wins = set().union(*(c.await_wins for c in between))
        if not _rates_agree(e, earlier.numbers, cut.numbers, lam, awaited, wins):
            return
        room = segment.end - n - MIN_REMAINING + 1
        periods = room // k
        if periods < 1:
            return
        deltas = {key: value - earlier.numbers.get(key, 0) for key, value in cut.numbers.items()}
        period_chunks = [[] for _ in range(e.n_issuers)]
        for record in between:
            if record.chunks is None:
                period_chunks = [None] * e.n_issuers
                break
            for issuer, chunks in enumerate(record.chunks):
                period_chunks[issuer].extend(chunks)
        shift = Shift(self, watch, view, periods, k, lam, mu, deltas, earlier.times)
        enclosing = [w for w in self._open_watches(leader, watch) if w is not watch]
        if not shift.check() or not shift.critical_paths(period_chunks, bool(enclosing)):
            return
        shift.apply()
        for w in enclosing:  # their periods span this skip: its effect on the critical paths
            if w.chunks is None or shift.path_jumps[0] is None:
                continue
            if not w.chunks:
                w.chunks = [[] for _ in range(e.n_issuers)]
            for mine, jump in zip(w.chunks, shift.path_jumps, strict=True):
                mine.append(jump)
        position = watch.positions[n]
        advance = shift.positions
        skipped = periods * k
        self.p.jump(watch.frame, skipped, watch.positions, advance, segment, e)
        self.skipped_ops += periods * deltas.get(("ops",), 0)
        watch.cuts.clear()
        watch.history.clear()
        watch.positions = {n + skipped: position + advance}
        self.reports.append(LoopReport(str(location_of(watch.frame.op) or "?"), k,
                                       max(lam) if lam else 0, earlier.n - segment.start,
                                       skipped))


class _Sink(list):
    """The queue of a dead agent: appends are only counted (``len`` includes them)."""

    dropped = 0

    def append(self, value) -> None:
        self.dropped += 1

    def __len__(self) -> int:
        return list.__len__(self) + self.dropped


def _numbers(e) -> dict:
    """Extensive quantities: what a skip adds ``m`` times the observed increase of."""
    out = {("ops",): e.tile_ops + e.sync_ops, ("tile_ops",): e.tile_ops,
           ("sync_ops",): e.sync_ops, ("spans",): getattr(e.p, "spans", 0)}
    for a, busy in enumerate(e.busy):
        out[("busy", a)] = busy
        out[("done", a)] = e.base[a] + e.head[a]
        out[("enq", a)] = e.base[a] + len(e.items[a])
        out[("wins", a)] = e.avail_wins[a]
        out[("groups", a)] = e.group_base[a] + len(e.groups[a])
    for r, busy in enumerate(e.res_busy):
        out[("res", r)] = busy
    for i, count in enumerate(e.bar_count):
        out[("bar", i)] = count
    for f in range(e.flags.count):
        out[("sets", f)] = e.flags.sets[f]
        out[("waits", f)] = e.flags.waits[f]
    for key, violation in e.findings._items.items():
        out[("finding", key)] = violation.count
    if e.detector is not None:
        for key, entry in e.detector.found.items():
            out[("race", key)] = entry[0]
    if e.bound is not None:
        for name, work in e.bound.work.items():
            out[("work", name)] = work
    return out


def _rates_agree(e, before: dict, after: dict, lam: list[int], awaited: set,
                 wins: set) -> bool:
    """Interactions between agents whose clocks moved at different rates stay decided the same
    way in every later period: the slower side never won (docs/simulator.md)."""
    def moved(key):
        return after.get(key, 0) != before.get(key, 0)

    issuers = e.n_issuers
    active = [i for i in range(issuers) if not e.done[i]]
    if issuers > 1 and len({lam[i] for i in active}) > 1:
        return False  # barriers, shared inline units and arbitration couple the groups
    for agent in e.p.agents[issuers:]:
        a, owner = agent.index, agent.owner
        if moved(("done", a)):
            if lam[owner] > lam[a]:
                return False
            if moved(("wins", a)) and lam[owner] != lam[a]:
                return False
    for f, flag in enumerate(e.p.flags):
        if (moved(("sets", f)) or moved(("waits", f))) and lam[flag.src] != lam[flag.dst]:
            return False
    for issuer, agent in awaited:
        if lam[agent] > lam[issuer]:
            return False
        if (issuer, agent) in wins and lam[agent] != lam[issuer]:
            return False
    return True
