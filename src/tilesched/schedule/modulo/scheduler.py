"""Rau-style iterative modulo scheduling with placement arms (the source document's scheduler).

Given a :class:`~tilesched.schedule.modulo.graph.ScheduleGraph`, :func:`modulo_schedule` finds an
initiation interval II and a start time per node meeting every dependence and the modulo resource
constraints (``validate.py`` states them), with II as small as it can, then the schedule as short
as the chosen rows allow. Everything is deterministic.

**Decomposition.** At a fixed II only the *rows* ``t mod II`` of capacity-using nodes matter for
resources, and dependences constrain rows only inside a strongly connected component: a
successor SCC can always be delayed by a multiple of II. So the capacity-using nodes of each SCC
form a :class:`~tilesched.schedule.modulo.graph.RecurrenceGroup` with pairwise bounds
``t(j) - t(i) >= D[i][j]`` (longest paths at this II), and scheduling is packing the groups into
the modulo reservation table. Oppermann et al. (FPL 2018) shrink exact models the same way. Once
every row is chosen, :func:`earliest_times` gives the least start times that keep them.

**II search** (:func:`_search_ii`): linear from MII; after ``linear_steps`` failures, galloping
then binary search. Before placing anything at an II, the window-density check
(:func:`~tilesched.schedule.modulo.mii.window_overload`) may prove that II infeasible.

**Placement at one II** (:mod:`.placer`): the recurrence groups are packed by the placement
arms of :mod:`.arms` (``permute``, ``fuse``, ``retry``, and the look-ahead search of
:mod:`.cost_arm`); when a group defeats every arm, the pass restarts with the failed groups
first. If that fails too, Rau's iterative modulo scheduling (:mod:`.ims`) runs on the whole
graph.

A failed II leaves a :class:`PlacementFailure`: the op, its footprint, its dependence window,
the full table rows with their occupants, and the resource or pool that refused it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from tilesched.schedule.modulo.arms import ARMS, place_with_arms
from tilesched.schedule.modulo.failure import WINDOW_DENSITY, PlacementFailure
from tilesched.schedule.modulo.graph import ScheduleGraph
from tilesched.schedule.modulo.ims import IMS, iterative_modulo_schedule
from tilesched.schedule.modulo.mii import MiiBounds, compute_bounds, window_overload
from tilesched.schedule.modulo.paths import earliest_times, recurrence_groups
from tilesched.schedule.modulo.placer import Placer
from tilesched.schedule.modulo.reservation_table import Footprint

UNCONSTRAINED = "unconstrained"
__all__ = ["ARMS", "IMS", "UNCONSTRAINED", "WINDOW_DENSITY", "IIAttempt", "ModuloResult",
           "PlacementFailure", "earliest_times", "modulo_schedule"]


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
    """The outcome of :func:`modulo_schedule`; ``ii`` is ``None`` when no II up to the cap worked.

    ``starts`` maps node ids to start cycles (earliest below II); ``stage_of[v] = starts[v] //
    ii``; ``stages`` is the stage count; ``length`` is ``max(start + latency)``; ``arms[v]`` names
    the arm (or ``ims``, or ``unconstrained`` for nodes using no capacity) that placed ``v``.
    ``lower_bound``: MII raised past every II the window-density check refuted.
    """

    bounds: MiiBounds
    ii: int | None = None
    starts: dict[str, int] = field(default_factory=dict)
    stages: int = 0
    length: int = 0
    arms: dict[str, str] = field(default_factory=dict)
    attempts: list[IIAttempt] = field(default_factory=list)

    @property
    def mii(self) -> int:
        """The lower bound the search started from."""
        return self.bounds.mii

    @property
    def lower_bound(self) -> int:
        """MII, raised past the IIs proved infeasible from MII upwards."""
        refuted = {a.ii for a in self.attempts if a.proven}
        bound = self.mii
        while bound in refuted:
            bound += 1
        return bound

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


def _search_ii(feasible, lower: int, upper: int, linear_steps: int) -> int | None:
    """Least II in ``[lower, upper]`` with ``feasible(ii)``: linear first, then galloping and
    binary search over the rest (a speed-up that assumes monotonicity beyond the linear part;
    feasibility is not monotone in II in general, which exact mode audits).

    ``feasible`` returns ``True``, ``False``, or ``None`` for an II proved infeasible; proofs are
    cheap, so they do not count against the ``linear_steps`` heuristic failures.
    """
    ii, failures = lower, 0
    while ii <= upper and failures < linear_steps:
        answer = feasible(ii)
        if answer:
            return ii
        failures += answer is not None
        ii += 1
    bad, step = ii - 1, 1
    while bad < upper:
        probe = min(bad + step, upper)
        if feasible(probe):
            good = probe
            break
        bad, step = probe, step * 2
    else:
        return None
    while good - bad > 1:
        mid = (bad + good) // 2
        if feasible(mid):
            good = mid
        else:
            bad = mid
    return good


def modulo_schedule(
    graph: ScheduleGraph,
    *,
    max_ii: int | None = None,
    max_stages: int | None = None,
    budget_ratio: float = 6.0,
    retry_rounds: int = 3,
    linear_steps: int = 8,
) -> ModuloResult:
    """Modulo-schedule ``graph`` (see the module docstring); deterministic.

    ``max_ii`` caps the search (default: MII plus the total footprint, at least 16);
    ``max_stages`` rejects schedules with more stages and raises MII by the dependency bound.
    Raises :class:`~tilesched.schedule.modulo.graph.GraphError` for graphs no II can schedule
    (zero-distance positive cycles, capacity 0 in use).
    """
    cg = graph.compiled()
    bounds = compute_bounds(cg, max_stages)
    result = ModuloResult(bounds)
    groups = recurrence_groups(cg)
    total = sum(len(u) for u in cg.usage)
    upper = max_ii if max_ii is not None else bounds.mii + max(total, 16)
    found: dict[int, tuple[Placer, list[int]]] = {}
    footprints = [Footprint(usage) for usage in cg.usage]

    def feasible(ii: int) -> bool:
        attempt, placer, times = _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages,
                                          footprints)
        result.attempts.append(attempt)
        if attempt.feasible:
            found[ii] = (placer, times)
        return None if attempt.proven else attempt.feasible

    ii = _search_ii(feasible, bounds.mii, upper, linear_steps) if bounds.mii <= upper else None
    if ii is None:
        return result
    placer, times = found[ii]
    result.ii = ii
    result.starts = {cg.ids[v]: t for v, t in enumerate(times)}
    result.stages = max(times, default=0) // ii + 1
    result.length = max((t + lat for t, lat in zip(times, cg.latency, strict=True)), default=0)
    result.arms = {cg.ids[v]: placer.arm.get(v, UNCONSTRAINED) for v in range(cg.n)}
    return result


def _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages, footprints):
    """Try one II: window-density proof, arms, then IMS. Returns ``(IIAttempt, placer, times)``."""
    placer = Placer(cg, groups, ii, budget_ratio, footprints)
    for v, footprint in enumerate(footprints):
        if footprint.cells and not placer.table.probe(footprint, 0):
            failure = placer.describe_failure(v, None, None, WINDOW_DENSITY,
                                              note="its footprint overlaps itself modulo II")
            return IIAttempt(ii, False, None, failure, proven=True), None, None
    for gi, group in enumerate(groups):
        overload = window_overload(cg, group.members, placer.dmat[gi], ii)
        if overload is not None:
            failure = PlacementFailure(
                ii, overload.hub, (), (overload.first, overload.last), {}, overload.column,
                overload.column in {cg.columns[c] for c in cg.pool_columns}, WINDOW_DENSITY,
                note=overload.text())
            return IIAttempt(ii, False, None, failure, proven=True), None, None
    method = "arms" if place_with_arms(placer, retry_rounds) else None
    arms_failure = placer.failure
    if method is None and iterative_modulo_schedule(placer):
        method = IMS
    if method is None:
        failure = arms_failure or placer.failure
        if arms_failure is not None and placer.failure is not None:
            notes = [arms_failure.note, f"then Rau's IMS: {placer.failure.note}"]
            failure = dataclasses.replace(arms_failure, note="; ".join(n for n in notes if n))
        return IIAttempt(ii, False, None, failure), None, None
    rows: list[int | None] = [None] * cg.n
    for v, t in placer.time.items():
        rows[v] = t % ii
    times = earliest_times(cg, ii, rows)
    stages = max(times, default=0) // ii + 1
    if max_stages and stages > max_stages:
        failure = PlacementFailure(ii, "", (), (None, None), {}, None, False, method,
                                   note=f"schedule needs {stages} stages > cap {max_stages}")
        return IIAttempt(ii, False, method, failure), None, None
    return IIAttempt(ii, True, method), placer, times
