"""The engine's state walked once, for steady-state mode (``steady.py``).

:func:`_walk` visits every value that influences the rest of a run (clocks, queues, flags,
groups, barriers, race histories, critical paths); a :class:`StateMap` says what to do with each
kind: :class:`Canonical` writes the cut's canonical form (times relative to their agent's clock,
epochs by rank, regions relative to the iteration), :class:`Shift` moves the state ``m`` periods
on (the jump), :class:`Collect` gathers what a cut refers to. Split from ``steady.py``, the
controller, which decides when to cut and jump.
"""

from __future__ import annotations

from tilesched.sim.engine.critical_path import advance_path
from tilesched.sim.isa import MAX_STATIC, VIRTUAL_STRIDE

DOMINATED = "dominated"  # a time every later use takes the max of with something no earlier
OLD = "old"


class NotHere(Exception):
    """The engine is not at a cut this controller can use (e.g. an issuer outside the loop)."""


# ---------------------------------------------------------------------- the state, walked once

class StateMap:
    """How a walk treats each kind of value (see :func:`_walk`)."""

    writes = False

    def __init__(self, ctl, watch):  # the steady.SteadyState controller, one loop's _Watch
        e = ctl.e
        self.e, self.ctl, self.watch = e, ctl, watch
        self.per_ref = ctl.p.issuers * MAX_STATIC
        self.start = watch.start_position
        self.segment = watch.segment
        self.clocks = list(e.clock)  # before a shift moves them

    def is_old(self, ref: int) -> bool:
        return ref // self.per_ref < self.start

    def vc(self, vc: tuple):
        return tuple(self.epoch(b, x) for b, x in enumerate(vc))

    def frozen(self, t):
        """A time that stays as it is (a dead agent's)."""
        return t

    def item(self, item: tuple):
        return (item[0], item[1], self.ref(item[2]), self.accesses(item[3], item[2]))

    def accesses(self, accesses: tuple, ref: int):
        out = []
        for buf, region, write, (_, loc) in accesses:
            moved = self.region(buf, region, ref)
            out.append((buf, moved, write, (moved, loc)))
        return tuple(out)

    def root_shift(self, buf: int):
        return self.segment.shift.get(buf % VIRTUAL_STRIDE if buf >= VIRTUAL_STRIDE else buf)


class Canonical(StateMap):
    """Relative values: what must repeat for the run to repeat."""

    def __init__(self, ctl, watch, leader: int, n: int):
        super().__init__(ctl, watch)
        e = self.e
        self.leader, self.n = leader, n
        self.position = watch.positions[n]
        self.done = [e.base[a] + e.head[a] for a in range(len(e.p.agents))]
        self.bar_base = max(e.bar_count)
        self.steps = n // self.segment.period

    def key(self) -> tuple:
        collect = Collect(self)
        _walk(collect)
        self.times = []
        self.size = 0
        self.ranks = [{x: r for r, x in enumerate(sorted(values | {self.e.seq[b]}))}
                      for b, values in enumerate(collect.epochs)]
        return (self.n % self.segment.period, tuple(_walk(self)), tuple(self._positions()))

    def _positions(self):
        """Where each issuer group is, relative to the leader's iteration."""
        e, stream = self.e, self.ctl.p.stream
        frame = self.watch.frame
        for i in range(e.n_issuers):
            if e.done[i]:
                yield ("done",)
                continue
            index = stream.next[i] - 1
            if index < stream.first:
                raise NotHere
            where = stream.chunks[index - stream.first].where
            found = next((w for w in where if w[0] is frame), None)
            if found is None or found[1] < self.segment.start or found[1] not in self.watch.positions:
                raise NotHere
            yield (found[1] - self.n, found[2], e.pc[i])

    def time(self, owner: int, t, floor=None):
        self.times.append(t)
        if floor is not None and t <= floor:
            return DOMINATED
        return t - self.e.clock[owner]

    def epoch(self, agent: int, x):
        return self.ranks[agent][x]

    def count(self, agent: int, c: int):
        return c - self.done[agent]

    def bar(self, k: int):
        return k - self.bar_base

    def ref(self, ref: int):
        self.size += 1
        if self.is_old(ref):
            return (OLD, ref)
        issuer_pos, sid = divmod(ref, MAX_STATIC)
        pos, issuer = divmod(issuer_pos, self.ctl.p.issuers)
        return (pos - self.position, issuer, sid)

    def region(self, buf: int, region, ref):
        self.size += 1
        if ref is not None and self.is_old(ref):
            return (OLD, region)
        shift = self.root_shift(buf)
        if not shift:
            return region
        return tuple((lo - s * self.steps, hi - s * self.steps)
                     for (lo, hi), s in zip(region, shift, strict=True))


class Shift(StateMap):
    """Values ``periods`` periods later: the state the full run would reach."""

    writes = True

    def __init__(self, ctl, watch, view: Canonical, periods: int, k: int, lam, mu, deltas,
                 before: list):
        super().__init__(ctl, watch)
        self.before = before  # the earlier cut's times, in walk order
        self.visited = 0
        self.periods, self.k = periods, k
        self.lam, self.mu, self.deltas = lam, mu, deltas
        self.steps = periods * k // self.segment.period
        positions = watch.positions
        self.positions = periods * (positions[view.n] - positions[view.n - k])
        e = self.e
        self.count_step = [deltas.get(("done", a), 0) for a in range(len(e.p.agents))]
        bar_steps = {deltas.get(("bar", i), 0) for i in range(e.n_issuers) if not e.done[i]}
        self.bar_step = bar_steps.pop() if len(bar_steps) == 1 else None

    def critical_paths(self, period_chunks, nested: bool = False) -> bool:
        """Advance each issuer's critical path exactly (max-plus power); False (every path left
        as it was) if impossible. ``nested``: the skip lies in a period of an enclosing loop,
        which replays it later: keep each path's map (``path_jumps``)."""
        self.path_jumps = [None] * self.e.n_issuers
        if self.e.bound is None or self.e.bound.paths is None:
            return True
        if self.bar_step is None:
            return False
        paths = self.e.bound.paths
        jumps = []
        for issuer, path in enumerate(paths):
            chunks = period_chunks[issuer]
            if chunks is None:
                return False  # not recorded (too many ops since the earlier cut)
            jump = advance_path(path, chunks, self._move, self.periods, nested)
            if jump is None:
                return False
            jumps.append(jump)
        for path, jump in zip(paths, jumps, strict=True):
            jump.apply(path)
        if nested:
            self.path_jumps = jumps
        return True

    def _move(self, buf: int, region, times: int):
        shift = self.root_shift(buf)
        if not shift:
            return region
        steps = times * self.k // self.segment.period
        return tuple((lo + s * steps, hi + s * steps) for (lo, hi), s in zip(region, shift,
                                                                             strict=True))

    def check(self) -> bool:
        """Does every time value either keep still or move with its owner? (No state changes.)"""
        self.writes, self.visited = False, 0
        try:
            _walk(self)
        except NotHere:
            return False
        finally:
            self.writes = True
        return True

    def apply(self) -> None:
        self.visited = 0
        _walk(self)
        e, m = self.e, self.periods
        for key, delta in self.deltas.items():
            if delta:
                _bump(e, key, m * delta)
        e.snap = [None] * e.n_issuers
        e.last_iv = [None] * len(e.last_iv)

    def time(self, owner: int, t, floor=None):
        """A time that moved by its owner's lambda over the period moves on; one that did not
        move (a value left from before, dominated where it is used) stays."""
        before = self.before[self.visited]
        self.visited += 1
        if t == before:
            return t
        if t - before != self.lam[owner]:
            raise NotHere
        return t + self.periods * self.lam[owner]

    def epoch(self, agent: int, x):
        return x + self.periods * self.mu[agent]

    def count(self, agent: int, c: int):
        return c + self.periods * self.count_step[agent]

    def bar(self, k: int):
        return k + self.periods * self.bar_step

    def ref(self, ref: int):
        if self.is_old(ref):
            return ref
        return ref + self.positions * self.per_ref

    def region(self, buf: int, region, ref):
        if ref is not None and self.is_old(ref):
            return region
        shift = self.root_shift(buf)
        if not shift:
            return region
        return tuple((lo + s * self.steps, hi + s * self.steps)
                     for (lo, hi), s in zip(region, shift, strict=True))




class Collect(Canonical):
    """A walk that only gathers every epoch value of each agent (for :meth:`Canonical.key`)."""

    def __init__(self, view: Canonical):
        self.__dict__.update(view.__dict__)
        self.epochs = [set() for _ in self.e.seq]

    def epoch(self, agent: int, x):
        self.epochs[agent].add(x)
        return x

    def ref(self, ref: int):
        return ref

    def region(self, buf: int, region, ref):
        return region

    def time(self, owner: int, t, floor=None):
        return t


def _bump(e, key: tuple, amount: int) -> None:
    """Add ``amount`` to one extensive quantity (see :func:`_numbers`)."""
    kind = key[0]
    if kind == "tile_ops":
        e.tile_ops += amount
    elif kind == "sync_ops":
        e.sync_ops += amount
    elif kind == "busy":
        e.busy[key[1]] += amount
    elif kind == "done":
        e.base[key[1]] += amount
    elif kind == "groups":
        e.group_base[key[1]] += amount
    elif kind == "res":
        e.res_busy[key[1]] += amount
    elif kind == "bar":
        e.bar_count[key[1]] += amount
    elif kind == "sets":
        e.flags.sets[key[1]] += amount
    elif kind == "waits":
        e.flags.waits[key[1]] += amount
    elif kind == "finding":
        e.findings._items[key[1]].count += amount
    elif kind == "race":
        e.detector.found[key[1]][0] += amount
    elif kind == "work":
        e.bound.work[key[1]] += amount
    elif kind == "spans":
        e.p.spans += amount
    elif kind == "enq" and key[1] in e.dead:
        for lists in (e.items, e.avail, e.ivc):  # ops enqueued to a dead agent: counted only
            lists[key[1]].dropped += amount


def _walk(m: StateMap) -> list:
    """Visit the engine state: canonical pieces (``m.apply`` false) or the shifted state."""
    e = m.e
    pieces = []
    put = pieces.append
    agents = e.p.agents
    for a in range(len(agents)):
        owner = agents[a].owner
        h = e.head[a]
        items = [m.item(x) for x in e.items[a][h:]]
        if a in m.ctl.dead:  # its times never matter again (and never move)
            avail = [m.frozen(t) for t in e.avail[a][h:]]
        else:
            avail = [m.time(owner, t, m.clocks[a]) for t in e.avail[a][h:]]
        ivc = [m.vc(v) for v in e.ivc[a][h:]]
        watch = [(m.count(a, need), issuer) for need, issuer in e.watch[a]]
        marks = [m.count(a, c) for c in e.marks[a]]
        keep = e.p.max_pending + 1
        groups = [m.count(a, c) for c in e.groups[a][-keep:]]
        marked = {m.count(a, c): (m.time(a, end, m.clocks[owner]), m.vc(v))
                  for c, (end, v) in e.marked[a].items() if c in e.groups[a][-keep:]}
        clock, vc = m.time(a, e.clock[a]), m.vc(e.vc[a])
        pipe = e.pipe.get(a)
        window = None
        if pipe is not None:
            window = {buf: [(m.region(buf, r, op), w, m.ref(op)) for r, w, op in entries]
                      for buf, entries in pipe.window.items()}
            covered, drain = m.time(a, pipe.covered), m.time(a, pipe.drain)
        if m.writes:
            e.items[a][h:], e.avail[a][h:], e.ivc[a][h:] = items, avail, ivc
            e.watch[a], e.groups[a] = watch, e.groups[a][:-keep] + groups
            e.marks[a].clear()
            e.marks[a].extend(marks)
            e.marked[a] = marked
            e.clock[a], e.seq[a], e.vc[a] = clock, e.seq[a] + m.periods * m.mu[a], vc
            if pipe is not None:
                pipe.window, pipe.covered, pipe.drain = window, covered, drain
        else:
            put((tuple(items), tuple(avail), tuple(ivc), tuple(watch), tuple(marks),
                 tuple(groups), tuple(sorted(marked.items())), vc,
                 None if pipe is None else (tuple((b, tuple(w)) for b, w in sorted(window.items())),
                                            covered, drain)))
    _walk_issuers(m, put)
    _walk_flags(m, put)
    _walk_races(m, put)
    _walk_paths(m, put)
    return pieces


def _walk_issuers(m: StateMap, put) -> None:
    e = m.e
    blocks = [_block(m, b) for b in e.block]
    arb = {i: m.time(i, t) for i, t in e.arb.items()}
    floor = min((m.clocks[i] for i in range(e.n_issuers) if not e.done[i]), default=None)
    res_free = [m.time(0, t, floor) for t in e.res_free]
    arrivals = {m.bar(k): {j: (m.time(j, t), m.vc(v)) for j, (t, v) in arrived.items()}
                for k, arrived in e.arrivals.items()}
    released = {m.bar(k): (m.time(0, t), m.vc(v)) for k, (t, v) in e.released.items()}
    left = {m.bar(k): c for k, c in e.barrier_left.items()}
    bar_wait = [None if k is None else m.bar(k) for k in e.bar_wait]
    if m.writes:
        e.block, e.arb, e.res_free = blocks, arb, res_free
        e.arrivals, e.released, e.barrier_left, e.bar_wait = arrivals, released, left, bar_wait
        return
    put((tuple(e.done), tuple(e.prio), tuple(e.passing), tuple(e.deferred), e.forced,
         tuple(blocks), tuple(sorted(arb.items())), tuple(res_free),
         tuple((k, tuple(sorted(v.items()))) for k, v in sorted(arrivals.items())),
         tuple(sorted(released.items())), tuple(sorted(left.items())), tuple(bar_wait),
         tuple(m.bar(c) for c in e.bar_count)))


def _block(m: StateMap, reason):
    if reason is None:
        return None
    if reason[0] == "agent":
        return ("agent", reason[1], m.count(reason[1], reason[2]), reason[3])
    if reason[0] == "barrier":
        return ("barrier", m.bar(reason[1]))
    return ("flag", reason[1], m.ref(reason[2]))


def _walk_flags(m: StateMap, put) -> None:
    e = m.e
    flags = e.flags
    pending = []
    last = []
    for f in range(flags.count):
        flag = e.p.flags[f]
        pending.append([(m.time(flag.src, t, m.clocks[flag.dst]), m.vc(v), m.ref(op))
                        for t, v, op in flags.pending[f]])
        wait = flags.last_wait[f]
        last.append(None if wait is None else (m.time(flag.dst, wait[0], m.clocks[flag.src] - 1),
                                              m.epoch(flag.dst, wait[1]), m.ref(wait[2]),
                                              m.ref(wait[3])))
    if m.writes:
        for f in range(flags.count):
            flags.pending[f].clear()
            flags.pending[f].extend(pending[f])
            flags.last_wait[f] = last[f]
        return
    put((tuple(tuple(p) for p in pending), tuple(last), tuple(flags.waiter)))


def _walk_races(m: StateMap, put) -> None:
    det = m.e.detector
    if det is None:
        return
    history = []
    for buf, per in det.history.items():
        for agent, h in per.items():
            tables = tuple(tuple(((m.region(buf, key[0], op), key[1]), (m.epoch(agent, epoch),
                                                                        m.ref(op)))
                                 for key, (epoch, op) in table.items())
                           for table in (h[1], h[3]))
            history.append((buf, agent, tables))
    classes = [((buf, _class_side(m, buf, side1, op1), _class_side(m, buf, side2, op2)), race,
                op1, op2)
               for (buf, side1, side2), (race, op1, op2) in det.classes.items()
               if _may_race_again(m, det, buf, side1, op1, side2, op2)]
    if m.writes:
        for buf, agent, (writes, reads) in history:
            det.history[buf][agent] = [max((v[0] for _, v in writes), default=0), dict(writes),
                                       max((v[0] for _, v in reads), default=0), dict(reads)]
        for pair, race, op1, op2 in classes:  # found in the skipped periods: not new again
            det.classes.setdefault(pair, (race, m.ref(op1), m.ref(op2)))
        return
    put(tuple(sorted(history, key=lambda x: (x[0], x[1]))))
    put(tuple(sorted(repr(pair) for pair, _, _, _ in classes)))


def _class_side(m: StateMap, buf: int, side: tuple, op: int) -> tuple:
    """A racing class ``(agent, (region, loc), is_write)`` with its region mapped."""
    agent, (region, loc), write = side
    return (agent, (m.region(buf, region, op), loc), write)


def _may_race_again(m: StateMap, det, buf: int, side1: tuple, op1: int, side2: tuple,
                    op2: int) -> bool:
    """Can this racing pair of classes be found again? (Then whether it was already found
    matters to the counts, so it belongs to the state.) One side must be accessed again (an op
    of the loop whose region does not move) and the other again or still be in the history."""
    again1, again2 = _recurs(m, buf, op1), _recurs(m, buf, op2)
    return ((again1 and (again2 or _in_history(det, buf, side2)))
            or (again2 and _in_history(det, buf, side1)))


def _recurs(m: StateMap, buf: int, op: int) -> bool:
    shift = m.root_shift(buf)
    return not m.is_old(op) and (not shift or not any(shift))


def _in_history(det, buf: int, side: tuple) -> bool:
    agent, key, write = side
    h = det.history.get(buf, {}).get(agent)
    return h is not None and key in h[1 if write else 3]


def _walk_paths(m: StateMap, put) -> None:
    bound = m.e.bound
    if bound is None or bound.paths is None or m.writes:
        return  # shifted by the max-plus power (Shift.critical_paths)
    for path in bound.paths:
        put(tuple((buf, tuple(m.region(buf, r, None) for r in written.regions()), written.disjoint)
                  for buf, written in sorted(path.writers.items())))
