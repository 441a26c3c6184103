"""Exact fusion planning with CP-SAT: the cheapest plan of a segment by :mod:`.cost`.

``fuse-tiles{exact=true}`` solves segments of at most a few dozen fusible nodes, so the
heuristic's gap to the optimum can be measured (BENCHMARKS.md). The model:

- *groups*: ``x[i, k]`` puts node ``i`` in the group whose first node is ``k`` (``k <= i``,
  same candidate component and domain); a node is in at most one group; a group whose first node
  is in it has at least one other member. Indexing groups by their first node removes every
  symmetry between group labels.
- *spans*: every node gets a rank ``t``; members of a group share one; every dependence
  ``i -> j`` needs ``t_j >= t_i + 1`` unless ``i`` and ``j`` are in the same group. Sorting by
  rank then gives an order in which every group is contiguous, so any solution is schedulable
  (the quotient graph is acyclic), and every schedulable plan has such ranks.
- *connected*: each member other than the first picks a parent in its group along a candidate
  edge with a strictly smaller level, so following parents reaches the first member.
- *cost*: :func:`.cost.plan_cost` linearized: the fixed term by first-member indicators, each
  node's time as the maximum of its operand streams (register or local-buffer cycles chosen by
  same-group indicators), tiles live at each member (touched before and after it) and the
  excess of the peak per group. A group's spills are priced at its first node's ``spill``
  (members of one domain on one unit share it); if they differ the plan is re-costed by
  :func:`.cost.plan_cost`.

Returns None when CP-SAT finds no solution in time. References: the Google OR-Tools CP-SAT
solver; the rank encoding of contiguous groups is the classic one for acyclic partitioning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ortools.sat.python import cp_model

from tilesched.schedule.fusion.cost import plan_cost
from tilesched.schedule.fusion.graph import FusionGraph
from tilesched.schedule.fusion.search import components


@dataclass
class ExactPlan:
    """An exact (or best found) plan: groups, cost, whether CP-SAT proved it optimal."""

    groups: list[list[int]]
    cost: int
    optimal: bool
    seconds: float


def supports(graph: FusionGraph, size: int) -> bool:
    """Is the segment small enough (at most ``size`` fusible nodes) to solve exactly?"""
    return sum(node.fusible for node in graph.nodes) <= size


def exact_plan(graph: FusionGraph, seconds: float = 10.0, hint: list[list[int]] | None = None,
               workers: int = 1) -> ExactPlan | None:
    """The cheapest plan of ``graph`` (see the module docstring)."""
    model = _Model(graph)
    if hint:
        model.hint(hint)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(seconds)
    solver.parameters.num_workers = workers
    status = solver.solve(model.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    groups = model.groups(solver)
    cost = plan_cost(graph, groups)
    uniform = len({node.spill for node in graph.nodes if node.fusible}) <= 1
    assert cost == round(solver.objective_value) or not uniform, \
        "the CP-SAT model and plan_cost disagree"
    return ExactPlan(groups, cost, status == cp_model.OPTIMAL, solver.wall_time)


class _Model:
    def __init__(self, graph: FusionGraph):
        self.graph = graph
        self.model = cp_model.CpModel()
        n = len(graph)
        self.component = {}
        for c, members in enumerate(components(graph, limit=n + 1)):
            for m in members:
                self.component[m] = c
        self.x: dict[tuple[int, int], cp_model.IntVar] = {}
        for i in sorted(self.component):
            for k in sorted(self.component):
                if k <= i and self.component[k] == self.component[i]:
                    self.x[i, k] = self.model.new_bool_var(f"x{i}_{k}")
        self.same_vars: dict[tuple[int, int], cp_model.IntVar] = {}
        self.groups_of_node()
        self.ranks()
        self.connectivity()
        self.objective()

    # ------------------------------------------------------------------ structure

    def slots(self, i: int) -> list[int]:
        return [k for (a, k) in self.x if a == i]

    def member_of_earlier(self, i: int):
        return sum(self.x[i, k] for k in self.slots(i) if k < i)

    def groups_of_node(self) -> None:
        m = self.model
        for i in self.component:
            m.add(sum(self.x[i, k] for k in self.slots(i)) <= 1)
        for (i, k), var in self.x.items():
            if i > k:
                m.add_implication(var, self.x[k, k])
        for k in self.component:
            others = [self.x[i, k] for (i, kk) in self.x if kk == k and i > k]
            if others:
                m.add(self.x[k, k] <= sum(others))
            else:
                m.add(self.x[k, k] == 0)

    def same(self, i: int, j: int):
        """1 when ``i`` and ``j`` are in the same group (0 when they can never be)."""
        a, b = min(i, j), max(i, j)
        if self.component.get(a) is None or self.component.get(a) != self.component.get(b):
            return 0
        if (a, b) not in self.same_vars:
            m = self.model
            var = m.new_bool_var(f"same{a}_{b}")
            terms = []
            for k in self.slots(a):
                both = m.new_bool_var(f"both{a}_{b}_{k}")
                m.add(both <= self.x[a, k])
                m.add(both <= self.x[b, k])
                m.add(both >= self.x[a, k] + self.x[b, k] - 1)
                terms.append(both)
            m.add(var == sum(terms))
            self.same_vars[a, b] = var
        return self.same_vars[a, b]

    def ranks(self) -> None:
        m, n = self.model, len(self.graph)
        self.t = [m.new_int_var(0, n, f"t{i}") for i in range(n)]
        for (i, k), var in self.x.items():
            if i > k:
                m.add(self.t[i] == self.t[k]).only_enforce_if(var)
        for i, j in self.graph.edges:
            m.add(self.t[j] >= self.t[i] + 1 - self.same(i, j))

    def connectivity(self) -> None:
        m = self.model
        size = len(self.component) + 1
        level = {i: m.new_int_var(0, size, f"level{i}") for i in self.component}
        parents: dict[int, list] = {i: [] for i in self.component}
        for i, j in self.graph.dataflow:
            for child, parent in ((i, j), (j, i)):
                var = m.new_bool_var(f"parent{child}_{parent}")
                m.add(var <= self.same(child, parent))
                m.add(level[child] >= level[parent] + 1).only_enforce_if(var)
                parents[child].append(var)
        for i in self.component:
            m.add(sum(parents[i]) == self.member_of_earlier(i))

    # ------------------------------------------------------------------ cost

    def objective(self) -> None:
        m, graph = self.model, self.graph
        terms = []
        for i, node in enumerate(graph.nodes):
            if not node.fusible:
                continue
            if i not in self.component:
                terms.append(node.alone())
                continue
            joined = self.member_of_earlier(i)
            terms.append(node.head_fixed + (node.member_fixed - node.head_fixed) * joined)
            streams = []
            for stream in node.reads:
                ub, reg = _scaled(stream.ub, node.factor), _scaled(stream.reg, node.factor)
                inside = self.same(stream.producer, i) if stream.producer is not None else 0
                streams.append(ub - (ub - reg) * inside)
            if node.write is not None:
                ub, reg = _scaled(node.write.ub, node.factor), _scaled(node.write.reg, node.factor)
                stays = self.write_stays(i)
                streams.append(ub - (ub - reg) * stays)
            upper = max([_scaled(s.ub, node.factor) for s in node.reads]
                        + ([_scaled(node.write.ub, node.factor)] if node.write else [0]))
            work = m.new_int_var(0, upper, f"work{i}")
            m.add_max_equality(work, streams)
            terms.append(work)
        for k in self.component:
            terms.append(self.spill(k))
        m.minimize(sum(terms))

    def write_stays(self, i: int):
        node = self.graph.nodes[i]
        if not node.write_may_stay or not node.readers:
            return 0
        sames = [self.same(i, r) for r in node.readers]
        if any(isinstance(s, int) for s in sames):
            return 0
        var = self.model.new_bool_var(f"stays{i}")
        for s in sames:
            self.model.add(var <= s)
        return var

    def spill(self, k: int):
        """Spill cycles of the group whose first node is ``k``: ``spill`` times the excess of its
        peak of live tiles over ``live_tiles`` (the target's rule, ``FusionModel.span_spills``).
        Tile ``t`` is live at member ``j`` when members at or before and at or after ``j`` touch
        it: ``before``/``after`` indicators bounded below by the membership of the touching
        nodes (minimization keeps them at the OR)."""
        node = self.graph.nodes[k]
        members = sorted(i for (i, kk) in self.x if kk == k)
        touchers: dict = {}
        for i in members:
            for tile in self.graph.nodes[i].tiles:
                touchers.setdefault(tile, []).append(i)
        if len(touchers) <= node.live_tiles or not node.spill:
            return 0
        m = self.model
        excess = m.new_int_var(0, len(touchers), f"excess{k}")
        for j in members:
            live = []
            for t, users in enumerate(touchers.values()):
                if j in users:
                    live.append(self.x[j, k])
                    continue
                early = [i for i in users if i < j]
                late = [i for i in users if i > j]
                if not early or not late:
                    continue
                before = m.new_bool_var(f"before{k}_{j}_{t}")
                after = m.new_bool_var(f"after{k}_{j}_{t}")
                for i in early:
                    m.add(before >= self.x[i, k])
                for i in late:
                    m.add(after >= self.x[i, k])
                var = m.new_bool_var(f"live{k}_{j}_{t}")
                m.add(var >= before + after + self.x[j, k] - 2)
                live.append(var)
            if len(live) > node.live_tiles:
                m.add(excess >= sum(live) - node.live_tiles)
        return node.spill * excess

    # ------------------------------------------------------------------ results

    def hint(self, groups: list[list[int]]) -> None:
        first = {m: min(g) for g in groups for m in g}
        for (i, k), var in self.x.items():
            self.model.add_hint(var, first.get(i) == k)

    def groups(self, solver: cp_model.CpSolver) -> list[list[int]]:
        found: dict[int, list[int]] = {}
        for (i, k), var in self.x.items():
            if solver.value(var):
                found.setdefault(k, []).append(i)
        return [sorted(g) for _, g in sorted(found.items()) if len(g) > 1]


def _scaled(cycles: int, factor: float) -> int:
    return math.ceil(cycles * factor)
