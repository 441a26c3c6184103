"""What :func:`~.scheduler.modulo_schedule` returns: the schedule, every II tried, the exact
search it ran when the heuristic stopped above the lower bound."""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.modulo.exact import ExactResult
from tilesched.schedule.modulo.failure import PlacementFailure
from tilesched.schedule.modulo.mii import MiiBounds


@dataclass
class IIAttempt:
    """One candidate II: whether it worked and how, or why not (``proven``: by a proof)."""

    ii: int
    feasible: bool
    method: str | None
    failure: PlacementFailure | None = None
    proven: bool = False


@dataclass
class ModuloResult:
    """The outcome of :func:`~.scheduler.modulo_schedule`; ``ii`` is ``None`` when no II up to
    the cap worked.

    ``starts`` maps node ids to start cycles (earliest below II); ``stage_of[v] = starts[v] //
    ii``; ``stages`` is the stage count; ``length`` is ``max(start + latency)``; ``arms[v]`` names
    the arm (or ``ims``, ``exact``, or ``unconstrained`` for nodes using no capacity) that placed
    ``v``. ``method``: ``heuristic`` (the placement arms or IMS found the schedule) or ``exact``
    (CP-SAT found it at an II the heuristic failed at); ``heuristic_ii`` is ``ii`` in the first
    case, else None. ``exact``: the record of the CP-SAT calls (None when none ran).
    """

    bounds: MiiBounds
    ii: int | None = None
    starts: dict[str, int] = field(default_factory=dict)
    stages: int = 0
    length: int = 0
    arms: dict[str, str] = field(default_factory=dict)
    attempts: list[IIAttempt] = field(default_factory=list)
    heuristic_ii: int | None = None
    exact: ExactResult | None = None
    method: str | None = None

    @property
    def mii(self) -> int:
        """The lower bound the search started from."""
        return self.bounds.mii

    @property
    def lower_bound(self) -> int:
        """MII, raised past the IIs proved infeasible from MII upwards (by the refutations
        before placement, then by the exact search)."""
        refuted = {a.ii for a in self.attempts if a.proven}
        bound = self.mii
        while bound in refuted:
            bound += 1
        if self.exact is not None:
            bound = max(bound, self.exact.lower_bound)
        return bound

    @property
    def optimal(self) -> bool:
        """Whether ``ii`` is proved minimal (every smaller II proved infeasible)."""
        return self.ii is not None and self.lower_bound >= self.ii

    @property
    def exact_seconds(self) -> float:
        """Time spent in the exact search (0 when none ran)."""
        return self.exact.seconds if self.exact is not None else 0.0

    @property
    def stage_of(self) -> dict[str, int]:
        """Stage of every node (``start // II``)."""
        return {v: t // self.ii for v, t in self.starts.items()} if self.ii else {}

    @property
    def kernel_order(self) -> dict[str, int]:
        """Position of every node in the steady-state kernel: by row (``start mod II``), then
        stage, then insertion order (what ``tile.order`` records)."""
        if not self.ii:
            return {}
        index = {v: i for i, v in enumerate(self.starts)}
        ranked = sorted(self.starts, key=lambda v: (self.starts[v] % self.ii,
                                                    self.starts[v] // self.ii, index[v]))
        return {v: k for k, v in enumerate(ranked)}

    @property
    def failures(self) -> list[PlacementFailure]:
        """The diagnostics of every II that failed, in search order."""
        return [a.failure for a in self.attempts if a.failure is not None]
