"""Exact minimum II with proof, by CP-SAT (OR-Tools), for modest graphs.

For each candidate II from MII upward, one satisfiability model decides whether a modulo schedule
exists; an ``INFEASIBLE`` answer is a proof, so the first feasible II after a run of proofs is the
proven optimum. Each II has its own time limit; when CP-SAT runs out of time, that II is
``unknown`` and the result cannot be called optimal. Before CP-SAT, the refutations of
:mod:`.bounds` (interval and circular density, energetic precedence) may prove an II infeasible
outright (method ``window-density``, ``circular-density`` or ``energetic``).

**Decomposed model** (default; the preprocessing of Oppermann et al., "Dependence Graph
Preprocessing for Faster Exact Modulo Scheduling in High-Level Synthesis", FPL 2018, as the
heuristic in ``modulo.py`` uses it): only capacity-using nodes inside recurrences get start
variables, bounded by the pairwise longest paths ``t(j) - t(i) >= D[i][j]`` of their SCC, each
recurrence's first node in ``[0, II)``; a capacity-using node outside recurrences gets a start
in ``[0, II)`` only if its footprint is more than one cell, since a one-cell node always finds a
free cell once II >= ResMII. The modulo capacity is one cumulative (or no-overlap) constraint per
column over every footprint cycle *and its copies shifted by k * II* for ``|k| <= K``: with ``K``
covering the span of all windows, a row's users all meet at one time point, so this is exactly
the modulo constraint, and CP-SAT's scheduling propagators (timetabling, edge finding) apply.
Symmetry breaking: the largest recurrence starts at 0 (rotating every row is a symmetry) and
interchangeable single nodes start in increasing order.

**Full model** (``model="full"``): every node has a start in ``[0, H]``, every edge is a
constraint, and rows are Booleans (the time-indexed formulation of Eichenberger & Davidson,
"Efficient formulation for optimal modulo schedulers", PLDI 1997). ``H`` is a horizon no least
schedule exceeds (:func:`_horizon`), so infeasibility is a proof here too. It shares no
preprocessing with the heuristic; the tests use it to audit the decomposed model on small graphs.

**Size limit.** The decomposed model is built when it keeps at most :data:`MAX_MODEL_NODES`
nodes (all 354 HatScheT graphs fit: the largest keeps 203); larger graphs get status
``skipped``. The full model is meant for graphs of a few dozen nodes.

CP-SAT runs ``workers`` parallel search strategies (default 8, even on two cores: the portfolio
matters more than the cores), so the time to a proof varies from run to run; the proofs do not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from tilesched.schedule.modulo.bounds import refute_ii
from tilesched.schedule.modulo.graph import CompiledGraph, ScheduleGraph
from tilesched.schedule.modulo.mii import compute_bounds
from tilesched.schedule.modulo.paths import (
    earliest_times,
    group_distance_matrix,
    group_distances,
    recurrence_groups,
)
from tilesched.schedule.modulo.reservation_table import ModuloReservationTable

MAX_MODEL_NODES = 400


@dataclass
class IIProof:
    """The answer for one II: ``feasible``, ``infeasible`` (proved) or ``unknown``, and by
    which ``method`` (``cp-sat``, or a rule of :data:`~.bounds.PROOF_RULES`)."""

    ii: int
    status: str
    seconds: float
    method: str = "cp-sat"
    work: float = 0.0  # CP-SAT deterministic time (0 for a refutation)


@dataclass
class ExactResult:
    """Outcome of :func:`exact_min_ii`.

    ``status``: ``optimal`` (``ii`` is feasible and every smaller II down to MII is proved
    infeasible), ``feasible`` (``ii`` works but some smaller II is unknown), ``unknown`` (no II
    decided feasible within the limits), or ``skipped`` (graph above the size limit).
    ``lower_bound``: every II below it is proved infeasible (or below MII).
    """

    status: str
    ii: int | None
    lower_bound: int
    mii: int
    starts: dict[str, int] = field(default_factory=dict)
    proofs: list[IIProof] = field(default_factory=list)
    seconds: float = 0.0


def exact_min_ii(
    graph: ScheduleGraph,
    *,
    upper: int | None = None,
    lower: int | None = None,
    time_limit: float = 10.0,
    budget: float | None = None,
    max_ii: int | None = None,
    workers: int = 8,
    model: str = "decomposed",
    bounds: bool = True,
) -> ExactResult:
    """Find and prove the minimum II of ``graph`` (see the module docstring).

    ``upper``: an II already known feasible (e.g. the heuristic's): only IIs below it are solved,
    and if all are infeasible ``upper`` is optimal (``starts`` then stays empty: the caller has
    that schedule). ``lower``: every II below it is already known infeasible (a lower bound the
    caller proved), so the search starts there. ``max_ii`` caps the upward search when
    ``upper`` is not given. ``time_limit`` bounds each II, ``budget`` (seconds) the whole call:
    IIs it leaves undecided are ``unknown``. ``bounds``: try the refutations of
    :mod:`.bounds` before CP-SAT (off: CP-SAT alone decides, an independent check).
    """
    start = time.perf_counter()
    cg = graph.compiled()
    mii = compute_bounds(cg).mii
    first = max(mii, lower or mii)
    result = ExactResult("unknown", None, first, mii)
    stop = upper if upper is not None else (max_ii or first + 64) + 1
    if model == "decomposed" and len(kept_nodes(cg, recurrence_groups(cg))) > MAX_MODEL_NODES:
        result.status = "skipped"
        return result
    for ii in range(first, stop):
        t0 = time.perf_counter()
        limit = time_limit if budget is None else min(time_limit, budget - (t0 - start))
        if limit <= 0:
            result.proofs.append(IIProof(ii, "unknown", 0.0, "budget"))
            continue
        status, times, method = _decide(cg, ii, limit, workers, model, bounds)
        result.proofs.append(IIProof(ii, status, time.perf_counter() - t0, method))
        if status == "infeasible" and result.lower_bound == ii:
            result.lower_bound = ii + 1
        if status == "feasible":
            result.ii = ii
            result.starts = {cg.ids[v]: t for v, t in enumerate(times)}
            break
    else:
        if upper is not None:
            result.ii = upper
    if result.ii is not None:
        result.status = "optimal" if result.lower_bound >= result.ii else "feasible"
    result.seconds = time.perf_counter() - start
    return result


def _decide(cg: CompiledGraph, ii: int, time_limit: float, workers: int, model: str,
            bounds: bool = True):
    """``(status, times, method)`` for one II: a refutation of :mod:`.bounds`, else CP-SAT."""
    if bounds and model == "decomposed":
        groups = recurrence_groups(cg)
        proof = refute_ii(cg, groups, [group_distance_matrix(g, ii) for g in groups], ii)
        if proof is not None:
            return "infeasible", None, proof.rule
    status, times, _ = _solve(cg, ii, time_limit, workers, model)
    return status, times, "cp-sat"


def decide_ii(cg: CompiledGraph, ii: int, work_limit: float, workers: int = 1,
              ) -> tuple[IIProof, list[int] | None]:
    """CP-SAT alone on one II of the decomposed model, tuned for one worker (no LP
    relaxation: on these models the propagators do the work, and the LP slows the first
    solution several-fold). ``work_limit`` is in CP-SAT's deterministic time units (about a
    second of solver work each, whatever the machine's load), so the answer does not depend on
    the load. ``(proof record, start times when feasible)``."""
    t0 = time.perf_counter()
    status, times, work = _solve(cg, ii, work_limit, workers, "decomposed", linearization=0,
                                 deterministic=True)
    return IIProof(ii, status, time.perf_counter() - t0, work=work), times


def kept_nodes(cg: CompiledGraph, groups) -> list[int]:
    """Limited nodes in recurrences, plus single nodes whose footprint is not one cell."""
    kept = []
    for group in groups:
        if group.bounded or len(cg.usage[group.members[0]]) > 1:
            kept.extend(group.members)
    return kept


def _solve(cg: CompiledGraph, ii: int, time_limit: float, workers: int, model: str,
           linearization: int | None = None, deterministic: bool = False):
    """Decide one II; returns ``(status, times or None, deterministic time)``. With ``deterministic`` the limit
    is in deterministic time units; a wall-clock limit of ``max(60, 30 * limit)`` seconds is a
    safety net loose enough that a loaded machine does not change the answer."""
    built = _FullModel(cg, ii) if model == "full" else _DecomposedModel(cg, ii)
    solver = cp_model.CpSolver()
    if deterministic:
        solver.parameters.max_deterministic_time = time_limit
        solver.parameters.max_time_in_seconds = max(60.0, 30 * time_limit)
    else:
        solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    if linearization is not None:
        solver.parameters.linearization_level = linearization
    status = solver.solve(built.model)
    work = solver.deterministic_time
    if status == cp_model.INFEASIBLE:
        return "infeasible", None, work
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "unknown", None, work
    return "feasible", built.times(solver), work


def _row_booleans(model: cp_model.CpModel, ii: int, name: str):
    """One Boolean per row, exactly one true, and the row as an integer expression."""
    bits = [model.new_bool_var(f"{name}@{s}") for s in range(ii)]
    model.add_exactly_one(bits)
    return bits, sum(s * b for s, b in enumerate(bits))


def _add_capacity(model: cp_model.CpModel, cg: CompiledGraph, ii: int, bits: dict) -> None:
    """Per column and row: footprint cycles landing there <= capacity."""
    load: dict[tuple[int, int], list] = {}
    for v, row_bits in bits.items():
        for off, col in cg.usage[v]:
            for s in range(ii):
                load.setdefault((col, (s + off) % ii), []).append(row_bits[s])
    for (col, _row), terms in load.items():
        if len(terms) > cg.column_capacity[col]:
            model.add(sum(terms) <= cg.column_capacity[col])


class _DecomposedModel:
    """The decomposed model of the module docstring for one II."""

    def __init__(self, cg: CompiledGraph, ii: int):
        self.cg, self.ii = cg, ii
        self.groups = recurrence_groups(cg)
        self.kept = kept_nodes(cg, self.groups)
        self.model = cp_model.CpModel()
        self.start: dict[int, cp_model.IntVar] = {}
        self.window: dict[int, tuple[int, int]] = {}
        groups = sorted((g for g in self.groups if g.bounded),
                        key=lambda g: (-len(g.members), g.members[0]))
        for n, group in enumerate(groups):
            self._add_group(group, anchored=n == 0)
        singles = [v for v in self.kept if v not in self.start]
        for v in singles:
            self._add_start(v, 0, ii - 1)
        if not groups and singles:
            self.model.add(self.start[singles[0]] == 0)
        self._order_interchangeable(singles[1:] if not groups else singles)
        self._add_capacity()

    def _add_start(self, v: int, lo: int, hi: int) -> None:
        self.start[v] = self.model.new_int_var(lo, hi, f"t{v}")
        self.window[v] = (lo, hi)

    def _add_group(self, group, anchored: bool) -> None:
        """Starts relative to the group's first member (in ``[0, II)``, or 0 for the anchor
        group), and the pairwise longest-path bounds."""
        ii, model = self.ii, self.model
        dmat = group_distances(group, ii)
        top = 0 if anchored else ii - 1
        for j, v in enumerate(group.members):
            self._add_start(v, dmat[0][j], top - dmat[j][0])
        members = group.members
        for i, u in enumerate(members):
            for j, v in enumerate(members):
                if i != j and dmat[i][j] > self.window[v][0] - self.window[u][1]:
                    model.add(self.start[v] - self.start[u] >= dmat[i][j])

    def _order_interchangeable(self, singles: list[int]) -> None:
        """Single nodes with equal footprints are interchangeable: order their starts."""
        classes: dict[tuple, list[int]] = {}
        for v in singles:
            classes.setdefault(self.cg.usage[v], []).append(v)
        for nodes in classes.values():
            for a, b in zip(nodes, nodes[1:], strict=False):
                self.model.add(self.start[a] <= self.start[b])

    def _add_capacity(self) -> None:
        """Per column, a cumulative over every footprint run (consecutive cycles) and its copies
        shifted by ``k * II`` for ``|k| <= K``; with ``K`` covering the span of all windows this
        is exactly the modulo capacity constraint (a row's users all meet at one time point)."""
        cg, ii, model = self.cg, self.ii, self.model
        if not self.kept:
            return
        lo = min(w[0] for w in self.window.values())
        hi = max(w[1] for w in self.window.values())
        reach = max(off for v in self.kept for off, _ in cg.usage[v])
        copies = -(-(hi - lo + reach + ii) // (2 * ii))
        per_column: dict[int, list] = {}
        for v in self.kept:
            for col, off, length in _runs(cg.usage[v]):
                for k in range(-copies, copies + 1):
                    iv = model.new_fixed_size_interval_var(
                        self.start[v] + off + k * ii, length, f"c{v}_{col}_{off}_{k}")
                    per_column.setdefault(col, []).append(iv)
        for col, intervals in per_column.items():
            cap = cg.column_capacity[col]
            if len(intervals) <= cap:
                continue
            if cap == 1:
                model.add_no_overlap(intervals)
            else:
                model.add_cumulative(intervals, [1] * len(intervals), cap)

    def times(self, solver: cp_model.CpSolver) -> list[int]:
        """Rows from the solution, dropped nodes into free cells, then least start times."""
        cg, ii = self.cg, self.ii
        rows: list[int | None] = [None] * cg.n
        table = ModuloReservationTable(ii, cg.column_capacity)
        for v in self.kept:
            rows[v] = solver.value(self.start[v]) % ii
            table.commit(v, cg.usage[v], rows[v])
        for v in range(cg.n):
            if cg.usage[v] and rows[v] is None:
                rows[v] = next(s for s in range(ii) if table.probe(cg.usage[v], s))
                table.commit(v, cg.usage[v], rows[v])
        return earliest_times(cg, ii, rows)


def _runs(usage: tuple[tuple[int, int], ...]) -> list[tuple[int, int, int]]:
    """A footprint as ``(column, first offset, length)`` runs of consecutive cycles."""
    runs: list[list[int]] = []
    for off, col in sorted(usage, key=lambda use: (use[1], use[0])):
        if runs and runs[-1][0] == col and runs[-1][1] + runs[-1][2] == off:
            runs[-1][2] += 1
        else:
            runs.append([col, off, 1])
    return [(col, off, length) for col, off, length in runs]


def _horizon(cg: CompiledGraph, ii: int) -> int:
    """An upper bound on every start of the least schedule with given rows.

    With ``t = ii * q + row``, an edge forces ``q(v) >= q(u) + c`` with
    ``c <= ceil((ii - 1 + sep - ii * distance) / ii)``; the least ``q`` is a longest simple path,
    so it is at most the sum over nodes of their largest positive ``c``.
    """
    total = 0
    for u in range(cg.n):
        worst = max((-(-(ii - 1 + sep - ii * d) // ii) for _, sep, d in cg.succ[u]), default=0)
        total += max(worst, 0)
    return ii * total + ii - 1


class _FullModel:
    """Every node, every edge, a proven horizon; no preprocessing shared with the heuristic."""

    def __init__(self, cg: CompiledGraph, ii: int):
        self.cg, self.ii = cg, ii
        self.model = model = cp_model.CpModel()
        horizon = _horizon(cg, ii)
        self.start = [model.new_int_var(0, horizon, f"t{v}") for v in range(cg.n)]
        for u, v, sep, d in cg.edges:
            model.add(self.start[v] - self.start[u] >= sep - ii * d)
        bits = {}
        for v in range(cg.n):
            if cg.usage[v]:
                bits[v], row = _row_booleans(model, ii, str(v))
                q = model.new_int_var(0, horizon // ii, f"q{v}")
                model.add(self.start[v] == ii * q + row)
        _add_capacity(model, cg, ii, bits)

    def times(self, solver: cp_model.CpSolver) -> list[int]:
        """The solver's start times."""
        return [solver.value(t) for t in self.start]
