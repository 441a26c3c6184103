"""Static vector clocks: happens-before among the units and the issuer, in program order.

The same relation the simulator checks (DESIGN.md §4): program order on a unit, issue order
(a queued op is ordered after what the issuer has *finished*), flag set -> wait, and
``barrier_all``. The planner uses it to drop implied dependences and to decide when an event
id is free again.
"""

from __future__ import annotations

from collections import defaultdict


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
            self.join(mine, self.clock[self.ISSUER])
        mine[unit] = mine.get(unit, 0) + 1
        if inline:
            self.join(self.clock[self.ISSUER], mine)
        return dict(mine)

    def receive(self, unit: str, snapshot: dict[str, int]) -> None:
        """``unit`` learns everything ``snapshot`` knew (a flag wait, a barrier)."""
        self.join(self.clock[unit], snapshot)

    def barrier_all(self) -> None:
        issuer = self.clock[self.ISSUER]
        for unit, clock in list(self.clock.items()):
            if unit != self.ISSUER:
                issuer[unit] = max(issuer.get(unit, 0), clock.get(unit, 0))

    def known(self, unit: str, other: str) -> int:
        """How many events of ``other`` ``unit`` (at its current point) has seen complete."""
        known = self.clock[unit].get(other, 0)
        if unit != self.ISSUER:
            known = max(known, self.clock[self.ISSUER].get(other, 0))
        return known

    def knows(self, unit: str, other: str, count: int) -> bool:
        """Has ``unit`` (at its current point) seen ``count`` events of ``other`` complete?"""
        return self.known(unit, other) >= count

    def view(self, unit: str) -> dict[str, int]:
        """Everything ``unit`` knows now: its own clock joined with the issuer's (a copy)."""
        view = dict(self.clock.get(unit, {}))
        self.join(view, self.clock.get(self.ISSUER, {}))
        return view

    @staticmethod
    def join(into: dict[str, int], other: dict[str, int]) -> None:
        for key, value in other.items():
            if into.get(key, 0) < value:
                into[key] = value
