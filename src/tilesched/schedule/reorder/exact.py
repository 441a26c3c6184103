"""Exact ``reorder-events``: the shortest order under the event limit, by CP-SAT.

For a straight-line segment of at most a few dozen ops (no control nodes, nothing inline),
:func:`exact_order` minimizes the makespan over all orders whose flags, as insert-sync plans
them (:mod:`tilesched.schedule.flags`), fit the event limit without a fallback. The
model is the planner's, written as constraints over the order:

* timing: start times; dependences; per unit a before/after literal for each pair of its ops
  (in-order queues: the program order on a unit is its execution order); makespan >= ends;
* happens-before ``reach(a, b)``: the transitive closure of dependences and unit order,
  made exact in both directions (every true ``reach`` is supported by a path);
* a flag ``(i, j)`` exists iff ``i`` is the latest producer ``j`` depends on among the ops of
  ``i``'s unit and no op of ``j``'s unit before ``j`` is reached from ``i`` (its wait
  would be redundant);
* an event id of pair ``(u, d)`` is held from a set to the moment its wait
  happens-before a later set of the pair on ``u``; at each set, the flags set earlier whose
  consumer does not reach the new set's producer, plus the new one, must fit the limit
  (lowest-free-id allocation then never needs more ids than that).

The objective ignores issue cycles (one per op on Ascend), so the optimum is a lower bound
for the timing replay; callers compare orders by replaying both. Reference: Laborie et al.,
"IBM ILOG CP Optimizer for scheduling" (interval/sequence models); OR-Tools CP-SAT.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import combinations

from ortools.sat.python import cp_model

from tilesched.schedule.reorder.event_schedule import reserved_pairs
from tilesched.schedule.reorder.order_cost import Machine
from tilesched.schedule.reorder.segment import Segment


@dataclass
class ExactResult:
    """The order CP-SAT found, its makespan bound, and whether it is proven optimal."""

    order: list[int]
    makespan: int
    optimal: bool


def supports(segment: Segment, max_ops: int) -> bool:
    """Can :func:`exact_order` model this segment (straight line, few enough unit ops)?"""
    unit_ops = [i for i in range(len(segment)) if segment.units[i] is not None]
    return (1 < len(unit_ops) <= max_ops and not any(segment.control)
            and not any(segment.inline))


def exact_order(segment: Segment, machine: Machine, seconds: float = 10.0,
                workers: int = 2) -> ExactResult | None:
    """Minimum-makespan order of ``segment`` under the event limit; None if none is found."""
    model = _ExactModel(segment, machine)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = workers
    status = solver.Solve(model.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    starts = [solver.Value(s) for s in model.start]
    order = model.order_from(starts, solver)
    return ExactResult(order, int(solver.ObjectiveValue()), status == cp_model.OPTIMAL)


class _ExactModel:
    """The CP-SAT model of the module docstring, built in the constructor."""

    def __init__(self, segment: Segment, machine: Machine) -> None:
        self.segment = segment
        self.machine = machine
        self.model = cp_model.CpModel()
        self.unit_ops = [i for i in range(len(segment)) if segment.units[i] is not None]
        self.static = _closure(len(segment), segment.succs)
        self.static_hb = _closure(len(segment), self._static_hb_edges())
        self._timing()
        self._happens_before()
        self._events()

    def _static_hb_edges(self) -> list[list[int]]:
        """Happens-before edges every order has: dependences between unit ops, and pairs of
        one unit's ops that the dependences already order (paths through free nodes order
        them without happens-before)."""
        segment = self.segment
        edges: list[list[int]] = [[] for _ in range(len(segment))]
        for j in self.unit_ops:
            for i in segment.dep_preds[j]:
                if segment.units[i] is not None:
                    edges[i].append(j)
        for a, b in combinations(self.unit_ops, 2):
            if segment.units[a] == segment.units[b] and self.static[a][b]:
                edges[a].append(b)
        return edges

    # ------------------------------------------------------------------ literals

    def _and(self, literals: list):
        """A literal equal to the conjunction (Python bools fold away)."""
        if any(lit is False for lit in literals):
            return False
        literals = [lit for lit in literals if lit is not True]
        if not literals:
            return True
        if len(literals) == 1:
            return literals[0]
        result = self.model.NewBoolVar("")
        self.model.AddBoolAnd(literals).OnlyEnforceIf(result)
        self.model.AddBoolOr([lit.Not() for lit in literals] + [result])
        return result

    def _or(self, literals: list):
        """A literal equal to the disjunction (Python bools fold away)."""
        if any(lit is True for lit in literals):
            return True
        literals = [lit for lit in literals if lit is not False]
        if not literals:
            return False
        if len(literals) == 1:
            return literals[0]
        result = self.model.NewBoolVar("")
        self.model.AddBoolOr(literals).OnlyEnforceIf(result)
        self.model.AddBoolAnd([lit.Not() for lit in literals]).OnlyEnforceIf(result.Not())
        return result

    @staticmethod
    def _not(literal):
        return (not literal) if isinstance(literal, bool) else literal.Not()

    # ------------------------------------------------------------------ timing

    def _timing(self) -> None:
        segment, model = self.segment, self.model
        horizon = sum(segment.durations) + 1
        self.start = [model.NewIntVar(0, horizon, f"s{i}") for i in range(len(segment))]
        self.before: dict[tuple[int, int], object] = {}
        for j in range(len(segment)):
            for i in segment.preds[j]:
                model.Add(self.start[j] >= self.start[i] + segment.durations[i])
        for a, b in combinations(self.unit_ops, 2):
            if segment.units[a] != segment.units[b]:
                continue
            if self.static[a][b] or self.static[b][a]:
                first, second = (a, b) if self.static[a][b] else (b, a)
                self.before[(first, second)], self.before[(second, first)] = True, False
                model.Add(self.start[second] >= self.start[first] + segment.durations[first])
                continue
            literal = model.NewBoolVar(f"b{a}_{b}")
            self.before[(a, b)], self.before[(b, a)] = literal, literal.Not()
            model.Add(self.start[b] >= self.start[a] + max(1, segment.durations[a])) \
                .OnlyEnforceIf(literal)
            model.Add(self.start[a] >= self.start[b] + max(1, segment.durations[b])) \
                .OnlyEnforceIf(literal.Not())
        self.makespan = model.NewIntVar(0, horizon, "makespan")
        for i in range(len(segment)):
            model.Add(self.makespan >= self.start[i] + segment.durations[i])
        model.Minimize(self.makespan)

    # ------------------------------------------------------------------ happens-before

    def _edge(self, a: int, b: int):
        """A happens-before edge a -> b: a dependence, or a before b on one unit."""
        if a in self.segment.dep_preds[b]:
            return True
        return self.before.get((a, b), False)

    def _happens_before(self) -> None:
        """``reach[a][b]``: exact transitive closure of :meth:`_edge` over unit ops."""
        ops = self.unit_ops
        self.reach: dict[tuple[int, int], object] = {}
        for a in ops:
            for b in ops:
                if a != b:
                    self.reach[(a, b)] = True if self.static_hb[a][b] else (
                        False if self.static[b][a] else self.model.NewBoolVar(f"r{a}_{b}"))
        for a in ops:
            for b in ops:
                if a == b or isinstance(self.reach[(a, b)], bool):
                    continue
                paths = [self._edge(a, b)] + [self._and([self.reach[(a, c)], self._edge(c, b)])
                                              for c in ops if c not in (a, b)]
                self.model.Add(self._or(paths) == 1).OnlyEnforceIf(self.reach[(a, b)])
                for path in paths:
                    if path is True:
                        self.model.Add(self.reach[(a, b)] == 1)
                    elif path is not False:
                        self.model.AddImplication(path, self.reach[(a, b)])

    def _reaches(self, a: int, b: int):
        return self.reach.get((a, b), False) if a != b else True

    # ------------------------------------------------------------------ events

    def _events(self) -> None:
        """Flags as the planner derives them, and the id limit at every set."""
        segment = self.segment
        reserved = reserved_pairs(segment, self.machine.limit)
        flags: dict[tuple[str, str], list[tuple[int, int, object]]] = {}
        for j in self.unit_ops:
            for i in segment.dep_preds[j]:
                u, d = segment.units[i], segment.units[j]
                if u is None or u == d:
                    continue
                need = self._need(i, j)
                if need is not False:
                    flags.setdefault((u, d), []).append((i, j, need))
        for pair, candidates in flags.items():
            room = self.machine.limit - (pair in reserved) - 1
            for i2, j2, need2 in candidates:
                held = [self._and([need, self.before.get((i, i2), False),
                                   self._not(self._reaches(j, i2))])
                        for i, j, need in candidates if (i, j) != (i2, j2)]
                held = [h for h in held if h is not False]
                if len(held) <= room:
                    continue
                terms = [1 if h is True else h for h in held]
                constraint = self.model.Add(sum(terms) <= room)
                if need2 is not True:
                    constraint.OnlyEnforceIf(need2)

    def _need(self, i: int, j: int):
        """Does ``j`` wait for a flag set after ``i`` (latest producer, not yet known)?"""
        segment = self.segment
        unit, dst = segment.units[i], segment.units[j]
        latest = [self.before.get((other, i), False) for other in segment.dep_preds[j]
                  if other != i and segment.units[other] == unit]
        known = [self._and([self.before.get((c, j), False), self._reaches(i, c)])
                 for c in self.unit_ops if c != j and segment.units[c] == dst]
        return self._and(latest + [self._not(self._or(known))])

    # ------------------------------------------------------------------ the order

    def order_from(self, starts: list[int], solver: cp_model.CpSolver) -> list[int]:
        """A program order consistent with the solution: Kahn by start time."""
        segment = self.segment
        succs = [list(s) for s in segment.succs]
        indegree = [len(p) for p in segment.preds]
        for (a, b), literal in self.before.items():
            if literal is True or (not isinstance(literal, bool) and solver.BooleanValue(literal)):
                if b not in segment.succs[a]:
                    succs[a].append(b)
                    indegree[b] += 1
        ready = [(starts[i], i) for i in range(len(segment)) if not indegree[i]]
        heapq.heapify(ready)
        order = []
        while ready:
            _, node = heapq.heappop(ready)
            order.append(node)
            for succ in succs[node]:
                indegree[succ] -= 1
                if not indegree[succ]:
                    heapq.heappush(ready, (starts[succ], succ))
        return order


def _closure(n: int, succs: list[list[int]]) -> list[list[bool]]:
    """``reach[a][b]``: is there a path a -> b (edges point forward in ``0..n-1``)?"""
    reach = [[False] * n for _ in range(n)]
    for a in range(n - 1, -1, -1):
        for b in succs[a]:
            reach[a][b] = True
            row = reach[b]
            reach[a] = [x or y for x, y in zip(reach[a], row, strict=True)]
    return reach
