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
from dataclasses import dataclass

from tilesched.schedule.modulo.arms import ARMS, place_with_arms
from tilesched.schedule.modulo.bounds import refute_ii
from tilesched.schedule.modulo.exact import MAX_MODEL_NODES, ExactResult, decide_ii, kept_nodes
from tilesched.schedule.modulo.failure import OVERLAP, PlacementFailure, failure_at, proof_failure
from tilesched.schedule.modulo.graph import ScheduleGraph
from tilesched.schedule.modulo.ims import IMS, iterative_modulo_schedule
from tilesched.schedule.modulo.mii import compute_bounds
from tilesched.schedule.modulo.paths import earliest_times, group_distance_matrix, recurrence_groups
from tilesched.schedule.modulo.placer import Placer
from tilesched.schedule.modulo.reservation_table import Footprint, ModuloReservationTable
from tilesched.schedule.modulo.result import IIAttempt, ModuloResult

UNCONSTRAINED = "unconstrained"
EXACT = "exact"
__all__ = ["ARMS", "EXACT", "IMS", "UNCONSTRAINED", "ExactPolicy", "IIAttempt", "ModuloResult",
           "PlacementFailure", "modulo_schedule"]


@dataclass(frozen=True)
class ExactPolicy:
    """When the default mode asks CP-SAT about an II the heuristic failed at, and how long.

    It asks when the heuristic fails at an II it could not prove infeasible and either the
    exact model is small (at most ``small_nodes`` kept nodes: CP-SAT then decides an II in
    milliseconds) or that II is at most ``small_gap`` above the proven lower bound (and the model
    within the exact mode's size limit). Each II gets ``work_limit`` and the graph ``budget`` in
    all, in CP-SAT's deterministic time units (roughly solver seconds, independent of the
    machine's load), with ``workers`` CP-SAT workers (1: one core).
    """

    small_nodes: int = 64
    small_gap: int = 2
    work_limit: float = 2.0
    budget: float = 3.0
    workers: int = 1


DEFAULT_EXACT = ExactPolicy()


class _ExactCalls:
    """The exact calls of one :func:`modulo_schedule` run, within its policy's budget."""

    def __init__(self, cg, policy: ExactPolicy | None, mii: int):
        self.cg, self.policy = cg, policy
        self.kept = len(kept_nodes(cg, recurrence_groups(cg))) if policy else 0
        self.record = ExactResult("unknown", None, mii, mii)
        self.work = 0.0

    def allows(self, ii: int, lower: int) -> bool:
        policy = self.policy
        if policy is None or self.work >= policy.budget:
            return False
        return self.kept <= policy.small_nodes or (
            ii - lower <= policy.small_gap and self.kept <= MAX_MODEL_NODES)

    def decide(self, ii: int) -> tuple[str, list[int] | None]:
        """CP-SAT on ``ii`` within the remaining budget; its status and start times."""
        policy = self.policy
        limit = min(policy.work_limit, policy.budget - self.work)
        proof, times = decide_ii(self.cg, ii, limit, policy.workers)
        self.record.proofs.append(proof)
        self.record.seconds += proof.seconds
        self.work += proof.work
        return proof.status, times


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
    exact: ExactPolicy | None = DEFAULT_EXACT,
) -> ModuloResult:
    """Modulo-schedule ``graph`` (see the module docstring); deterministic up to the exact
    search's time limits.

    ``max_ii`` caps the search (default: MII plus the total footprint, at least 16);
    ``max_stages`` rejects schedules with more stages and raises MII by the dependency bound.
    ``exact``: when and how long to run the exact search below the heuristic's II (None: never).
    Raises :class:`~tilesched.schedule.modulo.graph.GraphError` for graphs no II can schedule
    (zero-distance positive cycles, capacity 0 in use).
    """
    cg = graph.compiled()
    bounds = compute_bounds(cg, max_stages)
    result = ModuloResult(bounds)
    groups = recurrence_groups(cg)
    total = sum(len(u) for u in cg.usage)
    upper = max_ii if max_ii is not None else bounds.mii + max(total, 16)
    found: dict[int, tuple[Placer | None, list[int]]] = {}
    footprints = [Footprint(usage) for usage in cg.usage]
    calls = _ExactCalls(cg, exact, bounds.mii)

    def feasible(ii: int) -> bool:
        attempt, placer, times = _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages,
                                          footprints)
        if not attempt.feasible and not attempt.proven and calls.allows(ii, result.lower_bound):
            attempt, times = _ask_exact(calls, attempt, max_stages)
        result.attempts.append(attempt)
        if attempt.feasible:
            found[ii] = (placer, times)
        return None if attempt.proven else attempt.feasible

    ii = _search_ii(feasible, bounds.mii, upper, linear_steps) if bounds.mii <= upper else None
    if calls.record.proofs:
        result.exact = calls.record
    if ii is None:
        return result
    placer, times = found[ii]
    result.ii, result.method = ii, "heuristic" if placer else EXACT
    result.heuristic_ii = ii if placer else None
    result.starts = {cg.ids[v]: t for v, t in enumerate(times)}
    result.stages = max(times, default=0) // ii + 1
    result.length = max((t + lat for t, lat in zip(times, cg.latency, strict=True)), default=0)
    result.arms = {cg.ids[v]: (placer.arm.get(v, UNCONSTRAINED) if placer else
                               EXACT if cg.usage[v] else UNCONSTRAINED) for v in range(cg.n)}
    _close_record(calls.record, result)
    return result


def _ask_exact(calls: _ExactCalls, attempt: IIAttempt, max_stages: int | None):
    """CP-SAT on an II the heuristic failed at: the attempt feasible (method ``exact``),
    proved infeasible, or unchanged when CP-SAT ran out of time."""
    ii = attempt.ii
    status, times = calls.decide(ii)
    if status == "feasible":
        stages = max(times, default=0) // ii + 1
        if not max_stages or stages <= max_stages:
            return IIAttempt(ii, True, EXACT), times
    if status == "infeasible":
        note = "; ".join(n for n in (attempt.failure.note if attempt.failure else "",
                                     "CP-SAT proved it infeasible") if n)
        failure = dataclasses.replace(attempt.failure, note=note) if attempt.failure else None
        return IIAttempt(ii, False, None, failure, proven=True), None
    return attempt, None


def _close_record(record: ExactResult, result: ModuloResult) -> None:
    """Status and bounds of the exact calls' record once the search is over."""
    record.lower_bound = result.lower_bound
    if any(p.status == "feasible" for p in record.proofs):
        record.ii = result.ii
    record.status = "optimal" if result.optimal else "feasible" if record.ii else "unknown"


def _attempt(cg, groups, ii, budget_ratio, retry_rounds, max_stages, footprints):
    """Try one II: proofs of infeasibility first, then the arms, then IMS. Returns
    ``(IIAttempt, placer, times)``."""
    table = ModuloReservationTable(ii, cg.column_capacity)
    for v, footprint in enumerate(footprints):
        if footprint.cells and not table.probe(footprint, 0):
            failure = failure_at(cg, table, v, footprint, (None, None), (1 << ii) - 1, OVERLAP,
                                 note="its footprint overlaps itself modulo II")
            return IIAttempt(ii, False, None, failure, proven=True), None, None
    dists = [group_distance_matrix(g, ii) for g in groups]
    proof = refute_ii(cg, groups, dists, ii)
    if proof is not None:
        return IIAttempt(ii, False, None, proof_failure(cg, ii, proof), proven=True), None, None
    placer = Placer(cg, groups, ii, budget_ratio, footprints, [d.tolist() for d in dists])
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
