"""Planning flags for a straight-line sequence of unit ops, in one pass over the program.

Input: items in program order, each on a unit (queued, or inline on the issuer), and
dependences ``(producer, consumer)``. Output: where to put ``set_flag`` / ``wait_flag``
pairs, ``pipe_barrier`` and ``barrier_all``, and which event id each flag uses.

Two steps. :func:`required_syncs` decides which dependences need a sync at all (the rest are
implied by happens-before; a consumer waits once per producer unit, for the latest).
:func:`allocate` then places them — a set right after its producer, a wait right before its
consumer — and gives each flag an id from the :class:`~.pool.EventPool`. When no id is free,
a pending flag of the pair is *widened* first: its set moves after the new (later, same
in-order unit) producer and covers both dependences, its wait before the earlier consumer.
Only when no flag of the pair is pending (every id waits to be known free) are the pair's
flags waited for early and a ``barrier_all`` makes every id free again: never over the limit,
never a failure.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tilesched.schedule.flags.clocks import StaticClocks
from tilesched.schedule.flags.ops import BARRIER_ALL, PIPE_BARRIER, SET, WAIT, Item, SyncOp
from tilesched.schedule.flags.pool import EventPool, OutOfIds, Pair

FLAG = "flag"


@dataclass
class FlagPlan:
    """The plan: sync ops to insert, and the peak number of live ids per pair."""

    ops: list[SyncOp]
    peak_events: dict[str, int]


def plan_flags(items: list[Item], deps: list[tuple[int, int]], limit: int,
               pipelined: frozenset[str] = frozenset(), naive: bool = False,
               reserved: dict[Pair, int] | None = None) -> FlagPlan:
    """Plan flags for straight-line ``items`` (see the module docstring).

    ``naive`` is the baseline benchmarks compare with: one flag per cross-unit
    dependence, without removing implied ones or coalescing producers. ``reserved``
    keeps one id of some pairs free (a loop's back-edge flags).
    """
    needs = naive_syncs(items, deps, pipelined) if naive else required_syncs(items, deps, pipelined)
    return allocate(items, needs, limit, reserved)


@dataclass(frozen=True)
class Need:
    """A dependence that needs a sync: a flag (set/wait), a pipe_barrier or a barrier_all."""

    kind: str            # FLAG, PIPE_BARRIER or BARRIER_ALL
    producer: int
    consumer: int


def required_syncs(items: list[Item], deps: list[tuple[int, int]],
                   pipelined: frozenset[str]) -> list[Need]:
    """Which dependences need a flag / barrier, after removing implied ones."""
    producers: dict[int, list[int]] = defaultdict(list)
    for src, dst in deps:
        if src < dst:
            producers[dst].append(src)
    clocks = StaticClocks()
    seq: dict[int, tuple[str, int]] = {}
    after: dict[int, dict[str, int]] = {}
    needs: list[Need] = []
    for j, item in enumerate(items):
        if item.unit is None:
            continue
        needs.extend(syncs_for(j, item, producers[j], items, seq, after, clocks, pipelined))
        snapshot = clocks.tick(item.unit, item.inline)
        seq[j] = (item.unit, snapshot[item.unit])
        after[j] = snapshot
    return needs


def naive_syncs(items: list[Item], deps: list[tuple[int, int]],
                pipelined: frozenset[str]) -> list[Need]:
    """Every dependence between different units gets its own sync."""
    needs = []
    for src, dst in sorted(set(deps)):
        producer, consumer = items[src], items[dst]
        if src >= dst or producer.unit is None or consumer.unit is None or producer.inline:
            continue
        if consumer.inline:
            needs.append(Need(BARRIER_ALL, src, dst))
        elif producer.unit != consumer.unit:
            needs.append(Need(FLAG, src, dst))
        elif producer.unit in pipelined:
            needs.append(Need(PIPE_BARRIER, src, dst))
    return needs


def syncs_for(j: int, item: Item, producer_ids: list[int], items: list[Item],
              seq: dict[int, tuple[str, int]], after: dict[int, dict[str, int]],
              clocks: StaticClocks, pipelined: frozenset[str]) -> list[Need]:
    """Needs of consumer ``j``, applying their happens-before effect to ``clocks``.

    ``seq[i]`` is (unit, count) of an earlier item, ``after[i]`` its unit's clock right
    after it: a consumer waits for the latest producer on each unit it does not know yet.
    """
    latest: dict[str, int] = {}
    for i in producer_ids:
        if i in seq:
            unit = seq[i][0]
            if unit not in latest or seq[i][1] > seq[latest[unit]][1]:
                latest[unit] = i
    found = []
    consumer_unit = StaticClocks.ISSUER if item.inline else item.unit
    # Latest producer first: its flag may bring knowledge of the earlier ones (then they are
    # implied and get nothing).
    for unit, i in sorted(latest.items(), key=lambda kv: -kv[1]):
        if items[i].inline:
            continue  # the issuer finished it before issuing j
        if clocks.knows(consumer_unit, unit, seq[i][1]):
            continue  # already implied by happens-before
        if item.inline:
            found.append(Need(BARRIER_ALL, i, j))
            clocks.barrier_all()
        elif unit == item.unit:
            if unit in pipelined:
                found.append(Need(PIPE_BARRIER, i, j))
                clocks.receive(unit, after[i])
        else:
            found.append(Need(FLAG, i, j))
            clocks.receive(item.unit, after[i])
    return found


class _Allocation:
    """Placing needs in program order: clocks of items and waits, the pool, pending flags."""

    def __init__(self, items: list[Item], limit: int, reserved: dict[Pair, int] | None) -> None:
        self.items = items
        self.inserts: list[SyncOp] = []
        self.pool = EventPool(limit, reserved)
        self.clocks = StaticClocks()
        # per pair: (needs the flag covers, id, the set's snapshot, the set) not waited yet
        self.pending: dict[Pair, list[tuple[tuple[Need, ...], int, dict[str, int], SyncOp]]] = (
            defaultdict(list))
        self.peak: dict[Pair, int] = defaultdict(int)

    def pair(self, need: Need) -> Pair:
        return self.items[need.producer].unit, self.items[need.consumer].unit

    def set(self, need: Need, position: int, order: int) -> None:
        """The set of ``need`` after its producer (before item ``position``)."""
        pair = self.pair(need)
        event = self.pool.free_id(pair, self.clocks.known(*pair))
        if event is None and self.pending[pair]:
            self.widen(need, pair, position, order)
            return
        if event is None:
            # Before this set but after the sets already placed at this position (lower orders).
            self.drain(pair, position, 10 + order - 0.5)
            event = self.pool.free_id(pair, self.clocks.known(*pair))
            if event is None:
                raise OutOfIds(pair)
        self.pool.take(pair, event)
        self.peak[pair] = max(self.peak[pair], self.pool.pending(pair))
        snapshot = self.clocks.tick(pair[0])
        sync = SyncOp(position, SET, pair[0], pair[1], event, order=10 + order)
        self.inserts.append(sync)
        self.pending[pair].append(((need,), event, snapshot, sync))

    def widen(self, need: Need, pair: Pair, position: int, order: int) -> None:
        """Out of ids, but a flag of the pair is still pending: its set moves here, after
        the later producer of the same in-order unit, and covers both dependences (its wait
        goes before the earlier of the two consumers). Of the pending flags, the one whose
        consumer comes last is widened (it loses the least)."""
        entry = max(self.pending[pair], key=lambda e: min(n.consumer for n in e[0]))
        needs, event, _, old = entry
        self.pending[pair].remove(entry)
        self.inserts.remove(old)
        snapshot = self.clocks.tick(pair[0])
        sync = SyncOp(position, SET, pair[0], pair[1], event, order=10 + order, fallback=True)
        self.inserts.append(sync)
        self.pending[pair].append((needs + (need,), event, snapshot, sync))

    def consumer_side(self, need: Need, j: int) -> None:
        """What consumer ``j`` does before it runs: a barrier, or the wait of its flag."""
        if need.kind == BARRIER_ALL:
            self.inserts.append(SyncOp(j, BARRIER_ALL, order=50))
            self.barrier_all()
        elif need.kind == PIPE_BARRIER:
            unit = self.items[j].unit
            self.inserts.append(SyncOp(j, PIPE_BARRIER, unit, unit, order=60))
        else:
            pair = self.pair(need)
            entry = next((p for p in self.pending[pair] if need in p[0]), None)
            if entry is not None:  # else already waited for: early by a drain, or widened
                self.wait(pair, entry, j, 40)

    def wait(self, pair: Pair, entry, position: int, order: float) -> None:
        _, event, snapshot, _ = entry
        self.pending[pair].remove(entry)
        self.clocks.receive(pair[1], snapshot)
        count = self.clocks.tick(pair[1])[pair[1]]
        self.pool.consume(pair, event, count)
        self.inserts.append(SyncOp(position, WAIT, pair[0], pair[1], event, order=order))

    def drain(self, pair: Pair, position: int, order: float) -> None:
        """Out of ids: wait for every pending flag of ``pair`` now, then barrier_all."""
        for entry in list(self.pending[pair]):
            self.wait(pair, entry, position, order)
        self.inserts.append(SyncOp(position, BARRIER_ALL, order=order + 0.25, fallback=True))
        self.barrier_all()

    def barrier_all(self) -> None:
        self.clocks.barrier_all()
        self.pool.reset()


def allocate(items: list[Item], needs: list[Need], limit: int,
              reserved: dict[Pair, int] | None = None) -> FlagPlan:
    """Place the needs in program order and give every flag an event id."""
    sets_after: dict[int, list[Need]] = defaultdict(list)
    syncs_before: dict[int, list[Need]] = defaultdict(list)
    for need in needs:
        if need.kind == FLAG:
            sets_after[need.producer].append(need)
        syncs_before[need.consumer].append(need)
    state = _Allocation(items, limit, reserved)
    for j, item in enumerate(items):
        for need in syncs_before.get(j, []):
            state.consumer_side(need, j)
        if item.unit is not None:
            state.clocks.tick(item.unit, item.inline)
        for order, need in enumerate(sets_after.get(j, [])):
            state.set(need, j + 1, order)
    peaks = {f"{src}->{dst}": n for (src, dst), n in state.peak.items()}
    return FlagPlan(sorted(state.inserts, key=lambda s: (s.position, s.order)), peaks)
