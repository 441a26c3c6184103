"""Event ids per directed unit pair, and the one rule for when an id is free again.

Every use of an id is a ``set_flag`` on the pair's source unit and the ``wait_flag`` that
consumes it on the destination unit, numbered by :class:`~.clocks.StaticClocks` as the
destination's ``count``-th event. A new set may take the id only when its unit *knows* that
wait (has seen ``count`` events of the destination): the wait happens-before the set, which is
stronger than coming first in program order (DESIGN.md §4). Both planners allocate with this
pool: :func:`~.plan.plan_flags` in program order, :class:`~.tracker.FlagTracker` one item at a
time at a past position (it passes the clock it kept for that position).
"""

from __future__ import annotations

from bisect import bisect_right, insort

Pair = tuple[str, str]


class OutOfIds(Exception):
    """A pair has no event id at all left for a plan (the others belong to nested regions)."""

    def __init__(self, pair: Pair) -> None:
        super().__init__(f"no event id of {pair[0]} -> {pair[1]} is left")
        self.pair = pair


class EventPool:
    """Event ids of each directed pair: pending (set, wait not placed yet) or consumed by a
    wait; ``reserved[pair] = r`` keeps the ids ``r .. limit - 1`` of a pair for a loop's
    back-edge flags (one per carried slot, numbered down from the top)."""

    def __init__(self, limit: int, reserved: dict[Pair, int] | None = None) -> None:
        self.limit = limit
        self.reserved = dict(reserved or {})
        self._uses: dict[Pair, dict[int, int | None]] = {}   # id -> wait count; None: pending
        self._waits: dict[Pair, list[tuple[int, int]]] = {}  # sorted (wait count, id)

    def free_id(self, pair: Pair, known: int, virtual: bool = False) -> int | None:
        """The lowest id whose latest wait the source unit knows (``known`` = events of the
        destination it has seen); with ``virtual``, ids past the limit (handed out by relaxed
        schedulers when every real id is held) are reused the same way."""
        uses = self._uses.get(pair, {})
        for event in range(min(self.limit, self.reserved.get(pair, self.limit))):
            if event not in uses:
                return event
            count = uses[event]
            if count is not None and known >= count:
                return event
        if virtual:
            for count, event in self._waits.get(pair, ()):
                if count > known:
                    break
                if event >= self.limit:
                    return event
        return None

    def take(self, pair: Pair, event: int) -> None:
        """A set takes ``event``: pending until :meth:`consume` places its wait."""
        uses = self._uses.setdefault(pair, {})
        count = uses.get(event)
        if count is not None:
            self._waits[pair].remove((count, event))
        uses[event] = None

    def consume(self, pair: Pair, event: int, count: int) -> None:
        """The wait for ``event`` is the destination's ``count``-th event."""
        self._uses[pair][event] = count
        insort(self._waits.setdefault(pair, []), (count, event))

    def pending(self, pair: Pair) -> int:
        """Ids of ``pair`` set and not yet waited for."""
        return sum(1 for count in self._uses.get(pair, {}).values() if count is None)

    def held(self, pair: Pair, known: int) -> int:
        """Ids of ``pair`` whose wait is placed but not known to a source unit at ``known``."""
        waits = self._waits.get(pair)
        if not waits:
            return 0
        return len(waits) - bisect_right(waits, (known, 1 << 62))

    def reset(self) -> None:
        """After a ``barrier_all`` every placed wait happens-before what follows."""
        for uses in self._uses.values():
            for event in [e for e, count in uses.items() if count is not None]:
                del uses[event]
        self._waits.clear()
