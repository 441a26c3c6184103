"""Flag planning one item at a time, for schedulers that choose the order as they go.

:class:`FlagTracker` computes what :func:`~.plan.plan_flags` computes for the finished order
while the order is being built, and answers the scheduler's questions about the next
candidate: which flags it would wait for, whether an id would run out, and how the *pressure*
of each pair would change (docs/reorder-events.md).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict

from tilesched.schedule.flags.clocks import StaticClocks
from tilesched.schedule.flags.ops import BARRIER_ALL, PIPE_BARRIER, SET, WAIT, Item, SyncOp
from tilesched.schedule.flags.plan import Need, syncs_for
from tilesched.schedule.flags.pool import EventPool, Pair


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
                 reserved: dict[Pair, int] | None = None) -> None:
        self.limit = limit
        self.pipelined = pipelined
        self.reserved = dict(reserved or {})
        self.items: list[Item] = []
        self.ops: list[SyncOp] = []
        self.peak: dict[Pair, int] = defaultdict(int)
        self.overflow: dict[Pair, int] = defaultdict(int)
        self._epoch = 0  # segments started (see knowledge_stamp)
        self._learnt: dict[str, int] = defaultdict(int)  # unit -> items added that it learnt from
        self._fresh_segment()

    def _fresh_segment(self) -> None:
        self._epoch += 1
        self._need_clocks = StaticClocks()   # _required_syncs's clocks: items and flags only
        self._clocks = StaticClocks()        # allocate's clocks: items and waits
        self._seq: dict[int, tuple[str, int]] = {}
        self._after: dict[int, dict[str, int]] = {}
        self._snap: dict[int, dict[str, int]] = {}
        self._pool = EventPool(self.limit, self.reserved)
        self._wait_at: dict[Pair, dict[int, int]] = defaultdict(dict)  # id -> its wait's position
        self._sets_after: dict[int, int] = defaultdict(int)
        self._declared: dict[Pair, list[int]] = defaultdict(list)
        self._declared_at: dict[Pair, list[int]] = defaultdict(list)  # positions
        # insertion-ordered (dicts, not sets): the order pairs are visited in decides the order of
        # pressures and pending pairs, and a set of str pairs iterates by PYTHONHASHSEED
        self._pairs: dict[Pair, None] = {}
        self._pairs_of: dict[str, dict[Pair, None]] = defaultdict(dict)  # unit -> its tracked pairs
        for pair in self.reserved:
            self._track(pair)
        self._cache: dict = {}  # views and pressures of the current state (cleared on change)
        self._now: dict[Pair, tuple[int, int]] | None = None  # see _components
        self._stale: dict[Pair, None] = {}

    def _track(self, pair: Pair) -> None:
        if pair not in self._pairs:
            self._pairs[pair] = None
            self._pairs_of[pair[0]][pair] = None
            self._pairs_of[pair[1]][pair] = None

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
        needs = syncs_for(j, item, producers, self.items, self._seq, self._after,
                           self._need_clocks, self.pipelined)
        for need in needs:
            self._consumer_side(need, j)
        self._learnt[item.unit] += 1
        if item.inline or any(need.kind == BARRIER_ALL for need in needs):
            self._now = None  # the issuer learnt something: every unit's view may change
            self._learnt[StaticClocks.ISSUER] += 1
        self._snap[j] = self._clocks.tick(item.unit, item.inline)
        after = self._need_clocks.tick(item.unit, item.inline)
        self._seq[j] = (item.unit, after[item.unit])
        self._after[j] = after
        if not item.inline:
            for unit in dict.fromkeys(u for u in consumer_units if u != item.unit):  # in order
                self._declared[(item.unit, unit)].append(after[item.unit])
                self._declared_at[(item.unit, unit)].append(j)
                self._track((item.unit, unit))
        self._stale.update(self._pairs_of[item.unit])

    def _consumer_side(self, need: Need, j: int) -> None:
        if need.kind == BARRIER_ALL:
            self.ops.append(SyncOp(j, BARRIER_ALL, order=50))
            self._clocks.barrier_all()
            self._pool.reset()
            self._wait_at.clear()
        elif need.kind == PIPE_BARRIER:
            unit = self.items[j].unit
            self.ops.append(SyncOp(j, PIPE_BARRIER, unit, unit, order=60))
        else:
            self._materialize(need.producer, j)

    def _materialize(self, producer: int, j: int) -> None:
        """The set after ``producer`` (chosen as plan_flags would there) and its wait before ``j``."""
        pair = (self.items[producer].unit, self.items[j].unit)
        snap = self._snap[producer]
        event = self._pool.free_id(pair, snap.get(pair[1], 0), virtual=True)
        if event is None:
            event = self.limit + self.overflow[pair]
        if event >= self.limit:
            self.overflow[pair] += 1
        position = producer + 1
        wait_at = self._wait_at[pair]
        self._track(pair)
        if len(wait_at) <= self.limit:  # past the limit (relaxed runs) the peak is not reported
            live = 1 + sum(1 for e, at in wait_at.items() if e != event and at >= position)
            self.peak[pair] = max(self.peak[pair], live)
        order = 10 + self._sets_after[producer]
        self._sets_after[producer] += 1
        self.ops.append(SyncOp(position, SET, pair[0], pair[1], event, order=order))
        self._clocks.receive(pair[1], snap)
        count = self._clocks.tick(pair[1])[pair[1]]
        self._pool.take(pair, event)
        self._pool.consume(pair, event, count)
        wait_at[event] = j
        self.ops.append(SyncOp(j, WAIT, pair[0], pair[1], event, order=40))

    # ------------------------------------------------------------------ results

    def plan_ops(self) -> list[SyncOp]:
        """The sync ops so far, sorted as :func:`plan_flags` returns them."""
        return sorted(self.ops, key=lambda s: (s.position, s.order))

    def peak_events(self) -> dict[str, int]:
        """Most flags of each pair set and not yet waited for, in program order."""
        return {f"{src}->{dst}": n for (src, dst), n in self.peak.items()}

    # ------------------------------------------------------------------ pressure

    def pressure(self) -> dict[Pair, int]:
        """Per pair: ids held now + pending producers (+ an id reserved for a back edge).
        Cached until the state changes: do not modify."""
        found = self._cache.get("pressure")
        if found is None:
            found = self._cache["pressure"] = {
                pair: held + pending + (pair in self.reserved)
                for pair, (held, pending) in self._components().items()}
        return found

    def _components(self) -> dict[Pair, tuple[int, int]]:
        """Per tracked pair: (ids held, pending producers) now. Kept across ``add``: a queued
        item changes only what its own unit knows, the ids of pairs into it and the pending
        producers of pairs out of it, so only pairs with its unit are recomputed (all of them
        after an inline item or a ``barrier_all``, which change what the issuer knows)."""
        found = self._now
        if found is None:
            found = self._now = {pair: (self.held(pair), self.pending(pair)) for pair in self._pairs}
        elif self._stale:
            for pair in self._stale:
                found[pair] = (self.held(pair), self.pending(pair))
        self._stale.clear()
        return found

    def state(self, pair: Pair) -> tuple[int, int]:
        """``(ids held, pending producers)`` of ``pair`` now: :meth:`held` and :meth:`pending`
        as :meth:`pressure` keeps them."""
        return self._components().get(pair, (0, 0))

    def pending_pairs(self) -> list[tuple[Pair, int]]:
        """``(pair, position of its latest pending producer)`` for each pair with pending
        producers (cached until the state changes)."""
        found = self._cache.get("pending")
        if found is None:
            found = self._cache["pending"] = [
                (pair, self._declared_at[pair][-1])
                for pair, (_, pending) in self._components().items() if pending]
        return found

    def knowledge_stamp(self, unit: str | None) -> tuple[int, int, int]:
        """Changes whenever what ``unit`` (or the issuer) knows may have changed: until then
        :meth:`flags_needed` gives the same answer for the same item and producers."""
        return (self._epoch, self._learnt[unit], self._learnt[StaticClocks.ISSUER])

    def held(self, pair: Pair, knowledge: dict[str, int] | None = None) -> int:
        """Ids of ``pair`` whose wait its source unit does not know (yet)."""
        if knowledge is None:
            knowledge = self._view("alloc", pair[0])
        return self._pool.held(pair, knowledge.get(pair[1], 0))

    def pending(self, pair: Pair, knowledge: dict[str, int] | None = None) -> int:
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
            view = self._cache[key] = clocks.view(unit)
        return view

    def flags_needed(self, item: Item, producers: list[int]) -> list[int] | None:
        """Producers whose flag ``item`` would wait for now; ``None`` if it needs a barrier_all."""
        if item.unit is None:
            return []
        seq = self._seq
        latest: dict[str, int] = {}
        for i in producers:
            found = seq.get(i)
            if found is not None:
                unit, count = found
                if unit not in latest or count > seq[latest[unit]][1]:
                    latest[unit] = i
        consumer = StaticClocks.ISSUER if item.inline else item.unit
        known = self._view("need", consumer)
        flags: list[int] = []
        for unit, i in sorted(latest.items(), key=lambda kv: -kv[1]):  # as syncs_for
            if self.items[i].inline or known.get(unit, 0) >= seq[i][1]:
                continue
            if item.inline:
                return None
            if unit != item.unit:
                flags.append(i)
            if unit != item.unit or unit in self.pipelined:  # the wait brings what i knew
                known = {**known}  # the cached view stays as it is
                StaticClocks.join(known, self._after[i])
        return sorted(flags)

    def overflows(self, item: Item, producers: list[int], flags: list[int] | None = None) -> bool:
        """Would adding ``item`` now make some set find every event id of its pair held?
        ``flags`` may pass :meth:`flags_needed` when the caller has it already."""
        if flags is None:
            flags = self.flags_needed(item, producers)
        for i in flags or []:
            pair = (self.items[i].unit, item.unit)
            if self._pool.free_id(pair, self._snap[i].get(item.unit, 0)) is None:
                return True
        return False

    def preview(self, item: Item, producers: list[int], consumer_units: tuple[str, ...] = (),
                flags: list[int] | None = None) -> dict[Pair, int]:
        """The pressure of every pair ``add(item, ...)`` would change, without adding it.

        ``flags`` may pass :meth:`flags_needed` when the caller has it already. Only the unit
        of ``item`` learns something: the held ids of its pairs as a source and the pending
        producers of its pairs as a destination change; the rest is the current pressure."""
        if flags is None:
            flags = self.flags_needed(item, producers)
        if flags is None:  # an inline consumer: barrier_all frees every id, knows every producer
            return {pair: int(pair in self.reserved) for pair in self.pressure()}
        unit = item.unit
        if unit is None:
            return {}
        if not flags:  # nothing learnt, nothing freed: only the new pending producer counts
            return self._declare_preview(item, unit, consumer_units, {})
        need_view = dict(self._view("need", unit))
        alloc_view = dict(self._view("alloc", unit))
        new_held: dict[Pair, int] = {}
        for i in flags:
            StaticClocks.join(need_view, self._after[i])
            StaticClocks.join(alloc_view, self._snap[i])
            pair = (self.items[i].unit, unit)
            new_held[pair] = new_held.get(pair, 0) + 1
        components = self._components()
        changed = {}
        for pair in dict.fromkeys([*self._pairs_of[unit], *new_held]):
            held, pending = components.get(pair, (0, 0))
            if pair[0] == unit:
                held = self.held(pair, alloc_view)
            else:
                pending = self.pending(pair, need_view)
            changed[pair] = held + new_held.get(pair, 0) + pending + (pair in self.reserved)
        return self._declare_preview(item, unit, consumer_units, changed)

    def _declare_preview(self, item: Item, unit: str, consumer_units: tuple[str, ...],
                         changed: dict) -> dict:
        """Add the pending producer ``item`` becomes for each consumer unit to ``changed``."""
        if not item.inline and consumer_units:
            current = self.pressure()
            for dst in consumer_units:
                if dst != unit:
                    pair = (unit, dst)
                    changed[pair] = changed.get(pair, current.get(pair, 0)) + 1
        return changed

    def latest_pending(self, pair: Pair) -> int | None:
        """Position of the last pending producer of ``pair`` (its consumer covers them all)."""
        if self.state(pair)[1]:
            return self._declared_at[pair][-1]
        return None
