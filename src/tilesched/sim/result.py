"""What a simulation run found: timing, utilization, races, deadlock and sync violations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tilesched.target.model import microseconds


@dataclass
class RaceSide:
    """One access of a race: the op name, its source location and where it ran."""

    op: str
    loc: str
    unit: str

    def to_json(self) -> dict:
        return {"op": self.op, "loc": self.loc, "unit": self.unit}


@dataclass
class Race:
    """Two unordered accesses to overlapping memory, at least one a write."""

    buffer: str
    first: RaceSide
    second: RaceSide
    count: int = 1

    def to_json(self) -> dict:
        return {"buffer": self.buffer, "first": self.first.to_json(),
                "second": self.second.to_json(), "count": self.count}


@dataclass
class Violation:
    """A sync fault other than a race (``kind`` is a stable identifier; see docs/simulator.md)."""

    kind: str
    detail: str
    count: int = 1

    def to_json(self) -> dict:
        return {"kind": self.kind, "detail": self.detail, "count": self.count}


class Findings:
    """Violations merged by (kind, detail), counting repeats from unrolled loops."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], Violation] = {}

    def add(self, kind: str, detail: str) -> None:
        """Record one occurrence."""
        found = self._items.get((kind, detail))
        if found is None:
            self._items[(kind, detail)] = Violation(kind, detail)
        else:
            found.count += 1

    def list(self) -> list[Violation]:
        """The violations in a fixed order (source location of the detail, then kind), so that
        the order in which a run met them (steady state or ``--full``) does not show."""
        return sorted(self._items.values(), key=_canonical)


_LEADING_LOCATION = re.compile(r"(.*?):(\d+):(\d+): ")


def _canonical(violation: Violation) -> tuple:
    found = _LEADING_LOCATION.match(violation.detail)
    where = (found.group(1), int(found.group(2)), int(found.group(3))) if found else ("", 0, 0)
    return where, violation.kind, violation.detail


@dataclass
class Blocked:
    """One agent that can never continue: who, at which op, waiting for what."""

    agent: str
    op: str
    loc: str
    waiting_for: str

    def to_json(self) -> dict:
        return {"agent": self.agent, "op": self.op, "loc": self.loc, "waiting_for": self.waiting_for}

    def __str__(self) -> str:
        return f"{self.agent} blocked at {self.op} ({self.loc}): waits for {self.waiting_for}"


@dataclass
class SimResult:
    """The outcome of one simulation (DESIGN.md §5 ``sim --json`` plus extras)."""

    machine: str
    cycles: int
    bound: int
    bound_reason: str
    units: dict[str, dict]
    races: list[Race]
    deadlock: list[Blocked] | None
    violations: list[Violation]
    sync_ops: int
    peak_live_events: dict[str, int]
    ops_executed: int
    agents: dict[str, dict] = field(default_factory=dict)
    timeline: object | None = None  # tilesched.sim.engine.engine.Timeline when recorded
    steady_state: list[dict] = field(default_factory=list)  # extrapolated loops (steady.py)
    ops_simulated: int = 0  # tile + sync ops the engine executed one by one
    ops_represented: int = 0  # tile + sync ops the run stands for (extrapolated ones too)
    frequency_hz: float | None = None  # the target's clock, when it gives one

    @property
    def time_us(self) -> float | None:
        """``cycles`` in microseconds at the target's clock; None when it gives none."""
        return microseconds(self.cycles, self.frequency_hz)

    @property
    def ok(self) -> bool:
        """No race, no deadlock, no violation."""
        return not self.races and self.deadlock is None and not self.violations

    @property
    def ratio(self) -> float | None:
        """cycles / bound (1.0 is optimal for this lower bound)."""
        return self.cycles / self.bound if self.bound else None
