"""Planning Ascend-style flag synchronization for a straight-line sequence of unit ops.

Input: items in program order, each on a unit (queued, or inline on the issuer),
and dependences ``(producer, consumer)``. Output: where to put ``set_flag`` /
``wait_flag`` pairs, ``pipe_barrier`` and ``barrier_all``, and which event id
each flag uses. Pure: it knows nothing of the IR.

The rules (DESIGN.md §4, issue 4):

* Units are in-order queues, so a wait for producer ``k`` on a unit also covers
  every earlier producer there: a consumer that needs several producers on one
  unit waits once, for the latest.
* A dependence already implied by happens-before (a chain of earlier flags,
  issue order, a barrier) gets nothing. Happens-before is tracked with static
  vector clocks (:class:`StaticClocks`), the same relation the simulator uses.
* An inline consumer of queued work needs the issuer to wait: ``barrier_all``.
  Same-unit dependences need ``pipe_barrier`` only on pipelined units.
* Event ids (:class:`EventPool`): at most ``limit`` per directed pair, and an id
  is reused only when the wait of its previous use happens-before the new set.
  When no id is free, the oldest pending flags of the pair are waited for early
  and a ``barrier_all`` makes every id free again: never over the limit, never a failure.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import defaultdict
from dataclasses import dataclass, field

SET, WAIT, PIPE_BARRIER, BARRIER_ALL = "set", "wait", "pipe_barrier", "barrier_all"


@dataclass(frozen=True)
class Item:
    """One op in program order: its unit, and whether it runs inline on the issuer."""

    unit: str | None
    inline: bool = False


@dataclass
class SyncOp:
    """A sync op to insert *before* item ``position`` (``len(items)`` = at the end).

    ``order`` breaks ties among inserts at one position (lower first).
    """

    position: int
    kind: str
    src: str = ""
    dst: str = ""
    event: int = -1
    order: float = 0
    fallback: bool = False  # a barrier_all issued because a pair ran out of event ids

    @property
    def pair(self) -> tuple[str, str]:
        return self.src, self.dst


class StaticClocks:
    """Vector clocks over units and the issuer, advanced in program order.

    ``clock[u][v]`` = how many events of unit ``v`` are known to have completed
    before unit ``u``'s current point. Queued ops inherit what the issuer has
    finished (issue order); ``barrier_all`` makes the issuer know everything.
    """

    ISSUER = "<issuer>"

    def __init__(self) -> None:
        self.clock: dict[str, dict[str, int]] = defaultdict(dict)

    def tick(self, unit: str, inline: bool = False) -> dict[str, int]:
        """Record one event on ``unit``; returns the unit's clock right after it."""
        mine = self.clock[unit]
        if unit != self.ISSUER:
            self._join(mine, self.clock[self.ISSUER])
        mine[unit] = mine.get(unit, 0) + 1
        if inline:
            self._join(self.clock[self.ISSUER], mine)
        return dict(mine)

    def receive(self, unit: str, snapshot: dict[str, int]) -> None:
        """``unit`` learns everything ``snapshot`` knew (a flag wait, a barrier)."""
        self._join(self.clock[unit], snapshot)

    def barrier_all(self) -> None:
        issuer = self.clock[self.ISSUER]
        for unit, clock in list(self.clock.items()):
            if unit != self.ISSUER:
                issuer[unit] = max(issuer.get(unit, 0), clock.get(unit, 0))

    def knows(self, unit: str, other: str, count: int) -> bool:
        """Has ``unit`` (at its current point) seen ``count`` events of ``other`` complete?"""
        clock = self.clock[unit]
        known = clock.get(other, 0)
        if unit != self.ISSUER:
            known = max(known, self.clock[self.ISSUER].get(other, 0))
        return known >= count

    @staticmethod
    def _join(into: dict[str, int], other: dict[str, int]) -> None:
        for key, value in other.items():
            if into.get(key, 0) < value:
                into[key] = value


@dataclass
class EventPool:
    """Event ids of each directed unit pair, freed only along happens-before."""

    limit: int
    # pair -> id -> (wait unit, wait count) of the wait that consumed its last set; None: pending
    last_wait: dict[tuple[str, str], dict[int, tuple[str, int] | None]] = field(
        default_factory=lambda: defaultdict(dict))
    peak: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    reserved: dict[tuple[str, str], int] = field(default_factory=dict)  # ids kept for back edges

    def free_id(self, pair: tuple[str, str], clocks: StaticClocks) -> int | None:
        """The lowest id whose previous wait happens-before a set on ``pair[0]`` now."""
        used = self.last_wait[pair]
        for event in range(self.limit):
            if self.reserved.get(pair) == event:
                continue
            if event not in used:
                return event
            wait = used[event]
            if wait is not None and clocks.knows(pair[0], wait[0], wait[1]):
                return event
        return None

    def take(self, pair: tuple[str, str], event: int) -> None:
        self.last_wait[pair][event] = None
        live = sum(1 for w in self.last_wait[pair].values() if w is None)
        self.peak[pair] = max(self.peak[pair], live)

    def release(self, pair: tuple[str, str], event: int, wait_unit: str, wait_count: int) -> None:
        self.last_wait[pair][event] = (wait_unit, wait_count)

    def reset(self) -> None:
        """After a barrier_all every previous wait happens-before what follows."""
        for ids in self.last_wait.values():
            for event, wait in ids.items():
                if wait is not None:
                    ids[event] = ("<issuer>", 0)


@dataclass
class FlagPlan:
    """The plan: sync ops to insert, and the peak number of live ids per pair."""

    ops: list[SyncOp]
    peak_events: dict[str, int]


def plan_flags(items: list[Item], deps: list[tuple[int, int]], limit: int,
               pipelined: frozenset[str] = frozenset(), naive: bool = False) -> FlagPlan:
    """Plan flags for straight-line ``items`` (see the module docstring).

    ``naive`` is the baseline benchmarks compare with: one flag per cross-unit
    dependence, without removing implied ones or coalescing producers.
    """
    needs = _naive_syncs(items, deps, pipelined) if naive else _required_syncs(items, deps, pipelined)
    return _allocate(items, needs, limit)


@dataclass(frozen=True)
class _Need:
    kind: str            # SET/WAIT pair ("flag"), PIPE_BARRIER or BARRIER_ALL
    producer: int
    consumer: int


def _required_syncs(items: list[Item], deps: list[tuple[int, int]],
                    pipelined: frozenset[str]) -> list[_Need]:
    """Which dependences need a flag / barrier, after removing implied ones."""
    producers: dict[int, list[int]] = defaultdict(list)
    for src, dst in deps:
        if src < dst:
            producers[dst].append(src)
    clocks = StaticClocks()
    seq: dict[int, tuple[str, int]] = {}
    after: dict[int, dict[str, int]] = {}
    needs: list[_Need] = []
    for j, item in enumerate(items):
        if item.unit is None:
            continue
        needs.extend(_syncs_for(j, item, producers[j], items, seq, after, clocks, pipelined))
        snapshot = clocks.tick(item.unit, item.inline)
        seq[j] = (item.unit, snapshot[item.unit])
        after[j] = snapshot
    return needs


def _naive_syncs(items: list[Item], deps: list[tuple[int, int]],
                 pipelined: frozenset[str]) -> list[_Need]:
    """Every dependence between different units gets its own sync."""
    needs = []
    for src, dst in sorted(set(deps)):
        producer, consumer = items[src], items[dst]
        if src >= dst or producer.unit is None or consumer.unit is None or producer.inline:
            continue
        if consumer.inline:
            needs.append(_Need(BARRIER_ALL, src, dst))
        elif producer.unit != consumer.unit:
            needs.append(_Need("flag", src, dst))
        elif producer.unit in pipelined:
            needs.append(_Need(PIPE_BARRIER, src, dst))
    return needs


def _syncs_for(j, item, producer_ids, items, seq, after, clocks, pipelined):
    """Needs of consumer ``j``, applying their happens-before effect to ``clocks``."""
    latest: dict[str, int] = {}
    for i in producer_ids:
        if i in seq:
            unit = seq[i][0]
            if unit not in latest or seq[i][1] > seq[latest[unit]][1]:
                latest[unit] = i
    found = []
    consumer_unit = StaticClocks.ISSUER if item.inline else item.unit
    for unit, i in sorted(latest.items(), key=lambda kv: kv[1]):
        if items[i].inline:
            continue  # the issuer finished it before issuing j
        if clocks.knows(consumer_unit, unit, seq[i][1]):
            continue  # already implied by happens-before
        if item.inline:
            found.append(_Need(BARRIER_ALL, i, j))
            clocks.barrier_all()
        elif unit == item.unit:
            if unit in pipelined:
                found.append(_Need(PIPE_BARRIER, i, j))
                clocks.receive(unit, after[i])
        else:
            found.append(_Need("flag", i, j))
            clocks.receive(item.unit, after[i])
    return found


def _allocate(items: list[Item], needs: list[_Need], limit: int,
              reserved: dict[tuple[str, str], int] | None = None) -> FlagPlan:
    """Place the needs in program order and give every flag an event id."""
    inserts: list[SyncOp] = []
    sets_after: dict[int, list[_Need]] = defaultdict(list)
    syncs_before: dict[int, list[_Need]] = defaultdict(list)
    for need in needs:
        if need.kind == "flag":
            sets_after[need.producer].append(need)
        syncs_before[need.consumer].append(need)
    pool = EventPool(limit, reserved=dict(reserved or {}))
    clocks = StaticClocks()
    pending: dict[tuple[str, str], list[tuple[_Need, int, dict[str, int]]]] = defaultdict(list)
    for j, item in enumerate(items):
        for need in syncs_before.get(j, []):
            _emit_consumer_side(need, j, items, inserts, pool, clocks, pending)
        if item.unit is not None:
            clocks.tick(item.unit, item.inline)
        for order, need in enumerate(sets_after.get(j, [])):
            _emit_set(need, j + 1, order, items, inserts, pool, clocks, pending)
    peaks = {f"{src}->{dst}": n for (src, dst), n in pool.peak.items()}
    return FlagPlan(sorted(inserts, key=lambda s: (s.position, s.order)), peaks)


def _emit_set(need, position, order, items, inserts, pool, clocks, pending):
    pair = (items[need.producer].unit, items[need.consumer].unit)
    event = pool.free_id(pair, clocks)
    if event is None:
        # Before this set but after the sets already placed at this position (lower orders).
        _drain_pair(pair, position, 10 + order - 0.5, inserts, pool, clocks, pending)
        event = pool.free_id(pair, clocks)
    pool.take(pair, event)
    snapshot = clocks.tick(pair[0])
    inserts.append(SyncOp(position, SET, pair[0], pair[1], event, order=10 + order))
    pending[pair].append((need, event, snapshot))


def _emit_consumer_side(need, j, items, inserts, pool, clocks, pending):
    if need.kind == BARRIER_ALL:
        inserts.append(SyncOp(j, BARRIER_ALL, order=50))
        clocks.barrier_all()
        pool.reset()
    elif need.kind == PIPE_BARRIER:
        inserts.append(SyncOp(j, PIPE_BARRIER, items[j].unit, items[j].unit, order=60))
    else:
        pair = (items[need.producer].unit, items[need.consumer].unit)
        entry = next((p for p in pending[pair] if p[0] is need), None)
        if entry is None:
            return  # already waited for early by a drain
        _wait(pair, entry, j, 40, inserts, pool, clocks, pending)


def _wait(pair, entry, position, order, inserts, pool, clocks, pending):
    need, event, snapshot = entry
    pending[pair].remove(entry)
    clocks.receive(pair[1], snapshot)
    count = clocks.tick(pair[1])[pair[1]]
    pool.release(pair, event, pair[1], count)
    inserts.append(SyncOp(position, WAIT, pair[0], pair[1], event, order=order))


def _drain_pair(pair, position, order, inserts, pool, clocks, pending):
    """Out of ids: wait for every pending flag of ``pair`` now, then barrier_all."""
    for entry in list(pending[pair]):
        _wait(pair, entry, position, order, inserts, pool, clocks, pending)
    inserts.append(SyncOp(position, BARRIER_ALL, order=order + 0.25, fallback=True))
    clocks.barrier_all()
    pool.reset()


@dataclass
class LoopFlagPlan:
    """Flags for one loop body: the body's inserts, plus flags set before the loop
    (``presets``) and drained after it (``drains``) for back-edge dependences."""

    body: list[SyncOp]
    presets: list[SyncOp]
    drains: list[SyncOp]
    peak_events: dict[str, int]
    serialized: bool = False  # fell back to a barrier_all at the end of each iteration


def plan_loop_flags(items: list[Item], deps: list[tuple[int, int]],
                    carried: list[tuple[int, int, int]], limit: int,
                    pipelined: frozenset[str] = frozenset()) -> LoopFlagPlan:
    """Flags for a loop body whose iterations follow each other.

    ``deps`` are intra-iteration dependences, ``carried`` loop-carried ones
    ``(producer, consumer, distance)``. A carried dependence whose consumer comes
    first in the body gets a back-edge flag: set after the last such producer of
    the unit pair, waited before the first such consumer in the next iteration,
    pre-set before the loop and drained after it (so zero-trip loops stay
    balanced). One whose consumer comes after its producer is synchronized as if
    intra-iteration: stronger, and the only correct choice with one id, since a
    back-edge flag would be set twice (pre-set, then this iteration's producer)
    before its first wait. software-pipeline unrolls its kernels by the slot
    count, which turns such dependences into intra-iteration ones or removes them. Flag reuse across iterations is
    checked on two unrolled iterations; when some id would be re-set before its
    previous wait happens-before the set, the plan falls back to a
    ``barrier_all`` at the end of each iteration.
    """
    back = [(p, c) for p, c, _ in carried if p >= c]
    forward = list(deps) + [(p, c) for p, c, _ in carried if p < c]
    back_flags, back_syncs = _back_edges(items, back, pipelined)
    if back_flags and limit < 2:
        return _serialized(items, forward, limit, pipelined)
    reserved = {pair: limit - 1 for pair in back_flags}  # one id of the pair for its back edge
    needs = _required_syncs(items, forward, pipelined)
    plan = _allocate(items, needs, limit, reserved)
    body = plan.ops + back_syncs
    presets, drains = [], []
    for pair, (producer, consumer) in back_flags.items():
        event = reserved[pair]
        body.append(SyncOp(producer + 1, SET, pair[0], pair[1], event, order=30))
        body.append(SyncOp(consumer, WAIT, pair[0], pair[1], event, order=20))
        presets.append(SyncOp(0, SET, pair[0], pair[1], event))
        drains.append(SyncOp(0, WAIT, pair[0], pair[1], event))
    body.sort(key=lambda s: (s.position, s.order))
    peaks = dict(plan.peak_events)
    for src, dst in back_flags:
        key = f"{src}->{dst}"
        peaks[key] = peaks.get(key, 0) + 1
    if not reuse_is_safe(items, body, presets):
        return _serialized(items, forward, limit, pipelined)
    return LoopFlagPlan(body, presets, drains, peaks)


def _back_edges(items, back, pipelined):
    """Back-edge flags per unit pair: (latest producer, earliest consumer); other syncs."""
    flags: dict[tuple[str, str], tuple[int, int]] = {}
    syncs: list[SyncOp] = []
    for producer, consumer in back:
        src, dst = items[producer], items[consumer]
        if src.unit is None or dst.unit is None or src.inline:
            continue  # issue order covers an inline producer
        if dst.inline:
            syncs.append(SyncOp(consumer, BARRIER_ALL, order=50))
        elif src.unit == dst.unit:
            if src.unit in pipelined:
                syncs.append(SyncOp(consumer, PIPE_BARRIER, src.unit, src.unit, order=60))
        else:
            pair = (src.unit, dst.unit)
            old = flags.get(pair, (producer, consumer))
            flags[pair] = (max(old[0], producer), min(old[1], consumer))
    unique = {(s.position, s.kind, s.src): s for s in syncs}
    return flags, list(unique.values())


def _serialized(items, forward, limit, pipelined) -> LoopFlagPlan:
    plan = plan_flags(items, forward, limit, pipelined)
    body = plan.ops + [SyncOp(len(items), BARRIER_ALL, order=99)]
    return LoopFlagPlan(body, [], [], plan.peak_events, serialized=True)


def reuse_is_safe(items: list[Item], body: list[SyncOp], presets: list[SyncOp]) -> bool:
    """Replay two iterations with static clocks: is every re-set of an id preceded
    (in happens-before) by the wait that consumed its previous set?"""
    clocks = StaticClocks()
    sets: dict[tuple, list[dict[str, int]]] = defaultdict(list)
    last_wait: dict[tuple, tuple[str, int]] = {}
    by_position: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in body:
        by_position[sync.position].append(sync)
    events = list(presets)
    for _ in range(2):
        for position in range(len(items) + 1):
            events.extend(sorted(by_position.get(position, []), key=lambda s: s.order))
            if position < len(items):
                events.append(items[position])
    for event in events:
        if isinstance(event, Item):
            if event.unit is not None:
                clocks.tick(event.unit, event.inline)
        elif event.kind == SET:
            key = (event.src, event.dst, event.event)
            if key in last_wait and not clocks.knows(event.src, *last_wait[key]):
                return False
            sets[key].append(clocks.tick(event.src))
        elif event.kind == WAIT:
            key = (event.src, event.dst, event.event)
            if sets[key]:
                clocks.receive(event.dst, sets[key].pop(0))
            last_wait[key] = (event.dst, clocks.tick(event.dst)[event.dst])
        elif event.kind == BARRIER_ALL:
            clocks.barrier_all()
    return True


def count_fallbacks(ops: list[SyncOp]) -> int:
    """How often a plan ran out of event ids (a drain: early waits, then ``barrier_all``).

    :func:`_drain_pair` marks its ``barrier_all`` as ``fallback``; barriers that an inline
    consumer needs and the per-iteration serialization of a loop are not counted.
    """
    return sum(1 for s in ops if s.kind == BARRIER_ALL and s.fallback)


def ids_used(ops: list[SyncOp]) -> dict[str, int]:
    """Distinct event ids each directed pair uses (highest id + 1) in a plan."""
    used: dict[str, int] = {}
    for s in ops:
        if s.kind == SET:
            key = f"{s.src}->{s.dst}"
            used[key] = max(used.get(key, 0), s.event + 1)
    return used


@dataclass
class _IdUse:
    """The latest use of an event id: its wait (count on the dst unit) and both positions."""

    wait_count: int
    set_position: int
    wait_position: int


class FlagTracker:
    """:func:`plan_flags`, one item at a time, for schedulers that choose the order as they go.

    ``add`` appends the next item of the order. A flag's ``set_flag`` belongs right after
    its producer, but whether it is needed is only known when its first consumer on the
    destination unit arrives (a later producer's flag may cover it), so the set is
    *materialized* then, at its past position, with the event id :func:`plan_flags` would
    have chosen there: the lowest id whose previous wait happens-before the producer's
    unit at that point (its vector-clock snapshot is kept). Sets of one pair materialize
    in the producer unit's order, and happens-before only points forward in program order,
    so the ids, positions and peaks come out exactly as :func:`plan_flags` computes them for
    the finished order, as long as no id runs out (there it drains and puts a
    ``barrier_all``; here, with ``enforce=False``, the set gets a virtual id ``>= limit``
    and counts as an overflow). Set events do not advance the clocks: nothing queries them,
    and materializing them later must not renumber what came after.

    For the scheduler's *safety* question the tracker also keeps, per pair, the
    **pressure**: ids held now (their wait is not yet known to the source unit) plus
    *pending* producers (scheduled, with an unscheduled consumer on the pair's destination
    that does not know them yet), each of which may still need a set. If the pressure never
    exceeds the limit, no set can ever find its ids exhausted (docs/reorder-events.md).
    """

    def __init__(self, limit: int, pipelined: frozenset[str] = frozenset(),
                 reserved: dict[tuple[str, str], int] | None = None) -> None:
        self.limit = limit
        self.pipelined = pipelined
        self.reserved = dict(reserved or {})
        self.items: list[Item] = []
        self.ops: list[SyncOp] = []
        self.peak: dict[tuple[str, str], int] = defaultdict(int)
        self.overflow: dict[tuple[str, str], int] = defaultdict(int)
        self._fresh_segment()

    def _fresh_segment(self) -> None:
        self._need_clocks = StaticClocks()   # _required_syncs's clocks: items and flags only
        self._clocks = StaticClocks()        # _allocate's clocks: items and waits
        self._seq: dict[int, tuple[str, int]] = {}
        self._after: dict[int, dict[str, int]] = {}
        self._snap: dict[int, dict[str, int]] = {}
        self._ids: dict[tuple[str, str], dict[int, _IdUse]] = defaultdict(dict)
        self._waits: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)  # sorted
        self._sets_after: dict[int, int] = defaultdict(int)
        self._declared: dict[tuple[str, str], list[int]] = defaultdict(list)
        self._declared_at: dict[tuple[str, str], list[int]] = defaultdict(list)  # positions
        self._pairs: set[tuple[str, str]] = set(self.reserved)
        self._cache: dict = {}  # views and pressures of the current state (cleared on change)

    # ------------------------------------------------------------------ building the order

    def boundary(self) -> None:
        """Start a new straight-line segment (insert-sync plans segments independently)."""
        self.items.append(Item(None))
        self._fresh_segment()

    def add(self, item: Item, producers: list[int], consumer_units: tuple[str, ...] = ()) -> None:
        """Append ``item``; ``producers`` are positions it depends on, ``consumer_units`` the
        units of its (still unscheduled) consumers, which make it a pending producer."""
        j = len(self.items)
        self.items.append(item)
        if item.unit is None:
            return
        self._cache.clear()
        needs = _syncs_for(j, item, producers, self.items, self._seq, self._after,
                           self._need_clocks, self.pipelined)
        for need in needs:
            self._consumer_side(need, j)
        self._snap[j] = self._clocks.tick(item.unit, item.inline)
        after = self._need_clocks.tick(item.unit, item.inline)
        self._seq[j] = (item.unit, after[item.unit])
        self._after[j] = after
        if not item.inline:
            for unit in set(consumer_units) - {item.unit}:
                self._declared[(item.unit, unit)].append(after[item.unit])
                self._declared_at[(item.unit, unit)].append(j)
                self._pairs.add((item.unit, unit))

    def _consumer_side(self, need: _Need, j: int) -> None:
        if need.kind == BARRIER_ALL:
            self.ops.append(SyncOp(j, BARRIER_ALL, order=50))
            self._clocks.barrier_all()
            self._ids.clear()
            self._waits.clear()
        elif need.kind == PIPE_BARRIER:
            unit = self.items[j].unit
            self.ops.append(SyncOp(j, PIPE_BARRIER, unit, unit, order=60))
        else:
            self._materialize(need.producer, j)

    def _materialize(self, producer: int, j: int) -> None:
        """The set after ``producer`` (chosen as plan_flags would there) and its wait before ``j``."""
        pair = (self.items[producer].unit, self.items[j].unit)
        snap = self._snap[producer]
        event = self._free_id(pair, snap, virtual=True)
        if event is None:
            event = self.limit + self.overflow[pair]
        if event >= self.limit:
            self.overflow[pair] += 1
        position = producer + 1
        uses = self._ids[pair]
        self._pairs.add(pair)
        if len(uses) <= self.limit:  # past the limit (relaxed runs) the peak is not reported
            live = 1 + sum(1 for e, use in uses.items()
                           if e != event and use.wait_position >= position)
            self.peak[pair] = max(self.peak[pair], live)
        order = 10 + self._sets_after[producer]
        self._sets_after[producer] += 1
        self.ops.append(SyncOp(position, SET, pair[0], pair[1], event, order=order))
        self._clocks.receive(pair[1], snap)
        count = self._clocks.tick(pair[1])[pair[1]]
        waits = self._waits[pair]
        if event in uses:
            waits.remove((uses[event].wait_count, event))
        insort(waits, (count, event))
        uses[event] = _IdUse(count, position, j)
        self.ops.append(SyncOp(j, WAIT, pair[0], pair[1], event, order=40))

    def _free_id(self, pair: tuple[str, str], snap: dict[str, int],
                 virtual: bool = False) -> int | None:
        """The lowest id free at ``snap``; with ``virtual``, ids past the limit count too."""
        uses = self._ids[pair]
        seen = snap.get(pair[1], 0)
        for event in range(self.limit):
            if self.reserved.get(pair) == event:
                continue
            use = uses.get(event)
            if use is None or seen >= use.wait_count:
                return event
        if virtual:
            for count, event in self._waits[pair]:
                if count > seen:
                    break
                if event >= self.limit:
                    return event
        return None

    # ------------------------------------------------------------------ results

    def plan_ops(self) -> list[SyncOp]:
        """The sync ops so far, sorted as :func:`plan_flags` returns them."""
        return sorted(self.ops, key=lambda s: (s.position, s.order))

    def peak_events(self) -> dict[str, int]:
        """Most flags of each pair set and not yet waited for, in program order."""
        return {f"{src}->{dst}": n for (src, dst), n in self.peak.items()}

    # ------------------------------------------------------------------ pressure

    def pressure(self) -> dict[tuple[str, str], int]:
        """Per pair: ids held now + pending producers (+ an id reserved for a back edge)."""
        found = self._cache.get("pressure")
        if found is None:
            found = self._cache["pressure"] = {
                pair: self.held(pair, None) + self.pending(pair, None) + (pair in self.reserved)
                for pair in self._pairs}
        return dict(found)

    def held(self, pair: tuple[str, str], knowledge: dict[str, int] | None = None) -> int:
        """Ids of ``pair`` whose wait its source unit does not know (yet)."""
        if knowledge is None:
            knowledge = self._view("alloc", pair[0])
        waits = self._waits.get(pair)
        if not waits:
            return 0
        return len(waits) - bisect_right(waits, (knowledge.get(pair[1], 0), 1 << 62))

    def pending(self, pair: tuple[str, str], knowledge: dict[str, int] | None = None) -> int:
        """Scheduled producers of ``pair`` that its destination unit does not know yet."""
        declared = self._declared.get(pair)
        if not declared:
            return 0
        if knowledge is None:
            knowledge = self._view("need", pair[1])
        return len(declared) - bisect_right(declared, knowledge.get(pair[0], 0))

    def _view(self, which: str, unit: str) -> dict[str, int]:
        """What ``unit`` knows now in the ``need`` or ``alloc`` clocks: its own clock joined
        with the issuer's (cached until the state changes; do not modify)."""
        key = (which, unit)
        view = self._cache.get(key)
        if view is None:
            clocks = self._need_clocks if which == "need" else self._clocks
            view = dict(clocks.clock.get(unit, {}))
            StaticClocks._join(view, clocks.clock.get(StaticClocks.ISSUER, {}))
            self._cache[key] = view
        return view

    def flags_needed(self, item: Item, producers: list[int]) -> list[int] | None:
        """Producers whose flag ``item`` would wait for now; ``None`` if it needs a barrier_all."""
        if item.unit is None:
            return []
        latest: dict[str, int] = {}
        for i in producers:
            if i in self._seq:
                unit, count = self._seq[i]
                if unit not in latest or count > self._seq[latest[unit]][1]:
                    latest[unit] = i
        consumer = StaticClocks.ISSUER if item.inline else item.unit
        flags = []
        for unit, i in latest.items():
            if self.items[i].inline or self._need_clocks.knows(consumer, unit, self._seq[i][1]):
                continue
            if item.inline:
                return None
            if unit != item.unit:
                flags.append(i)
        return sorted(flags)

    def overflows(self, item: Item, producers: list[int]) -> bool:
        """Would adding ``item`` now make some set find every event id of its pair held?"""
        for i in self.flags_needed(item, producers) or []:
            if self._free_id((self.items[i].unit, item.unit), self._snap[i]) is None:
                return True
        return False

    def preview(self, item: Item, producers: list[int], consumer_units: tuple[str, ...] = (),
                flags: list[int] | None = None) -> dict[tuple[str, str], int]:
        """The pressure of every pair ``add(item, ...)`` would change, without adding it.

        ``flags`` may pass :meth:`flags_needed` when the caller has it already."""
        if flags is None:
            flags = self.flags_needed(item, producers)
        if flags is None:  # an inline consumer: barrier_all frees every id, knows every producer
            return {pair: int(pair in self.reserved) for pair in self.pressure()}
        unit = item.unit
        if unit is None:
            return {}
        if not flags:  # nothing learnt, nothing freed: only the new pending producer counts
            return self._declare_preview(item, unit, consumer_units, {})
        need_view = self._view("need", unit)
        alloc_view = self._view("alloc", unit)
        new_held: dict[tuple[str, str], int] = defaultdict(int)
        if flags:
            need_view, alloc_view = dict(need_view), dict(alloc_view)
        for i in flags:
            StaticClocks._join(need_view, self._after[i])
            StaticClocks._join(alloc_view, self._snap[i])
            new_held[(self.items[i].unit, unit)] += 1
        changed = {}
        for pair in self._pairs | set(new_held):
            if unit not in pair:
                continue
            held = self.held(pair, alloc_view if pair[0] == unit else None)
            pending = self.pending(pair, need_view if pair[1] == unit else None)
            changed[pair] = held + new_held.get(pair, 0) + pending + (pair in self.reserved)
        return self._declare_preview(item, unit, consumer_units, changed)

    def _declare_preview(self, item: Item, unit: str, consumer_units: tuple[str, ...],
                         changed: dict) -> dict:
        """Add the pending producer ``item`` becomes for each consumer unit to ``changed``."""
        if not item.inline and consumer_units:
            current = self._cache.get("pressure") or self.pressure()
            for dst in consumer_units:
                if dst != unit:
                    pair = (unit, dst)
                    changed[pair] = changed.get(pair, current.get(pair, 0)) + 1
        return changed

    def latest_pending(self, pair: tuple[str, str]) -> int | None:
        """Position of the last pending producer of ``pair`` (its consumer covers them all)."""
        if self.pending(pair):
            return self._declared_at[pair][-1]
        return None
