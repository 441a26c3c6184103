"""Fusion planning: which fusible nodes of a segment share a span (cost-guided search).

The candidate groups are the connected sets of fusible nodes of one iteration domain along
direct dataflow edges (:class:`~.graph.FusionGraph`). A plan must leave the quotient graph
acyclic (every group can be made one contiguous span, :mod:`.spans`); its cost is
:func:`.cost.plan_cost`.

The planner works one *component* at a time (the nodes the candidate edges connect; a
component of more than :data:`MAX_COMPONENT` nodes is cut into chunks of consecutive nodes), in
program order, against a *committed order*: a topological order of the segment in which the
groups chosen so far are contiguous. Within the window of the committed order a component
spans, every path between two of its nodes stays inside the window, so feasibility is decided
exactly with window-local reachability bitsets (committed groups contracted).

Within a component the search is a beam search over the candidate edges in program order: each
state either merges the groups an edge joins (if the quotient stays acyclic) or does not, and
the ``beam`` cheapest distinct partitions survive each step. Refusing a merge that pays off now
keeps a state alive that can take a better merge later (seed 002's example: a branch that raises
the live tiles so much that the better join is rejected). The best partition is then improved by
local moves (a node leaves its group or moves to a neighbouring group) while the cost drops.

Large kernels repeat themselves (unrolled loops, one chain per head): a component whose
signature (its nodes' cost data, window bits, reachability and candidate edges, numbered within
the component) equals one already searched gets that component's groups without a search.

``beam=1`` without improvement and accepting a merge only when it lowers the cost is the plain
greedy planner (:func:`plan_greedy`), kept as the baseline the benchmarks compare with. Exact
plans come from :mod:`.exact` (CP-SAT). Deterministic: ties break on node order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from operator import attrgetter

from tilesched.schedule.fusion.cost import group_cost, plan_cost
from tilesched.schedule.fusion.graph import FusionGraph

BEAM = 24
MAX_COMPONENT = 48
IMPROVE_ROUNDS = 4


@dataclass
class Plan:
    """Groups (node lists in program order), their cost, and an order making each a span."""

    groups: list[list[int]]
    cost: int
    order: list[int]


def plan_segment(graph: FusionGraph, beam: int = BEAM, improve: bool = True) -> Plan:
    """The cost-guided plan of one segment (see the module docstring)."""
    return _Planner(graph, beam, improve, greedy=False).run()


def plan_greedy(graph: FusionGraph) -> Plan:
    """The plain greedy baseline: merge along candidate edges in program order whenever the
    quotient stays acyclic and the cost drops."""
    return _Planner(graph, 1, improve=False, greedy=True).run()


def components(graph: FusionGraph, limit: int = MAX_COMPONENT) -> list[list[int]]:
    """Connected sets of fusible nodes along candidate edges (more than one node), cut into
    chunks of at most ``limit`` consecutive nodes, ordered by their first node."""
    parent = list(range(len(graph)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in graph.dataflow:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    sets: dict[int, list[int]] = {}
    for node in range(len(graph)):
        if graph.nodes[node].fusible:
            sets.setdefault(find(node), []).append(node)
    chunks = []
    for members in sets.values():
        for start in range(0, len(members), limit):
            if len(members[start:start + limit]) >= 2:
                chunks.append(members[start:start + limit])
    return sorted(chunks, key=lambda c: c[0])


class _Committed:
    """The committed order of a segment and the groups placed in it so far."""

    def __init__(self, graph: FusionGraph):
        n = len(graph)
        self.graph = graph
        self.order = list(range(n))
        self.pos = list(range(n))
        self.group_of = [-1] * n
        self.groups: list[list[int]] = []

    def reach(self, lo: int, hi: int) -> tuple[list[int], list[int]]:
        """Descendant and ancestor bitsets of the window ``[lo, hi]`` of the committed order
        (bit ``k`` is position ``lo + k``), committed groups contracted: reaching one member
        reaches the whole group and everything any member reaches. A committed group is never
        cut by the window (its ends are nodes of the component, which are in no group)."""
        units: list[list[int]] = []
        for k in range(hi - lo + 1):
            group = self.group_of[self.order[lo + k]]
            if units and group >= 0 and self.group_of[self.order[lo + units[-1][0]]] == group:
                units[-1].append(k)
            else:
                units.append([k])
        desc, anc = [0] * (hi - lo + 1), [0] * (hi - lo + 1)
        for unit in reversed(units):
            self._close(unit, lo, hi, self.graph.succs, desc)
        for unit in units:
            self._close(unit, lo, hi, self.graph.preds, anc)
        return desc, anc

    def _close(self, unit: list[int], lo: int, hi: int, neighbours, known: list[int]) -> None:
        mask = 0
        inside = {self.order[lo + k] for k in unit}
        for k in unit:
            for other in neighbours[self.order[lo + k]]:
                p = self.pos[other]
                if lo <= p <= hi and other not in inside:
                    mask |= known[p - lo] | (1 << (p - lo))
        if len(unit) > 1:  # a contracted group reaches (and is reached with) all its members
            mask |= sum(1 << k for k in unit)
        for k in unit:
            known[k] = mask

    def commit(self, lo: int, hi: int, new_groups: list[list[int]]) -> None:
        """Add ``new_groups`` (inside the window) and reorder the window so each is a span."""
        for members in new_groups:
            gid = len(self.groups)
            self.groups.append(sorted(members))
            for m in members:
                self.group_of[m] = gid
        window = self.order[lo:hi + 1]
        unit = {}
        for node in window:
            gid = self.group_of[node]
            unit[node] = ("g", gid) if gid >= 0 else ("n", node)
        members: dict = {}
        for node in window:
            members.setdefault(unit[node], []).append(node)
        first = {u: min(self.pos[m] for m in ms) for u, ms in members.items()}
        succs: dict = {u: set() for u in members}
        indegree = dict.fromkeys(members, 0)
        for node in window:
            for other in self.graph.succs[node]:
                if lo <= self.pos[other] <= hi and unit[other] != unit[node] \
                        and unit[other] not in succs[unit[node]]:
                    succs[unit[node]].add(unit[other])
                    indegree[unit[other]] += 1
        ready = [(first[u], u) for u, d in indegree.items() if d == 0]
        heapq.heapify(ready)
        placed: list[int] = []
        while ready:
            _, u = heapq.heappop(ready)
            placed.extend(sorted(members[u], key=lambda m: self.pos[m]))
            for v in succs[u]:
                indegree[v] -= 1
                if indegree[v] == 0:
                    heapq.heappush(ready, (first[v], v))
        assert len(placed) == len(window), "a committed fusion group is on a cycle"
        self.order[lo:hi + 1] = placed
        for offset, node in enumerate(placed):
            self.pos[node] = lo + offset


_RANK = attrgetter("cost", "labels")  # cheapest first, ties by the partition


class _State:
    """A partition of one component: ``labels[k]`` is the first node of the group of the
    component's ``k``-th node; ``members`` maps a first node to its group."""

    __slots__ = ("labels", "members", "cost")

    def __init__(self, labels: tuple[int, ...], members: dict[int, tuple[int, ...]], cost: int):
        self.labels = labels
        self.members = members
        self.cost = cost

    def key(self) -> tuple[int, ...]:
        return self.labels


class _Planner:
    def __init__(self, graph: FusionGraph, beam: int, improve: bool, greedy: bool,
                 reuse: bool = True):
        self.graph = graph
        self.reuse = reuse  # False: search every component (the reference the tests compare)
        self.beam = max(1, beam)
        self.improve_moves = improve
        self.greedy = greedy
        self.costs: dict[tuple[int, ...], int] = {}
        self.solved: dict[tuple, list[list[int]]] = {}  # component signature -> its groups
        self.consumers: list[list[int]] = [[] for _ in range(len(graph))]
        for i, j in graph.dataflow:
            self.consumers[i].append(j)

    def run(self) -> Plan:
        committed = _Committed(self.graph)
        for component in components(self.graph):
            positions = [committed.pos[m] for m in component]
            lo, hi = min(positions), max(positions)
            desc, anc = committed.reach(lo, hi)
            search = _ComponentSearch(self, component, lo, committed.pos, desc, anc)
            committed.commit(lo, hi, self.groups_of(search))
        groups = [list(g) for g in committed.groups]
        return Plan(groups, plan_cost(self.graph, groups), list(committed.order))

    def groups_of(self, search: _ComponentSearch) -> list[list[int]]:
        """The component's groups; a component identical to one searched before (see
        :meth:`_ComponentSearch.signature`) gets the same groups without a search."""
        signature = search.signature() if self.reuse else None
        found = self.solved.get(signature) if self.reuse else None
        if found is None:
            found = self.solved[signature] = [[search.index[m] for m in group]
                                              for group in search.best()]
        return [[search.nodes[k] for k in group] for group in found]

    def cost(self, members: tuple[int, ...]) -> int:
        found = self.costs.get(members)
        if found is None:
            found = group_cost(self.graph, members) if len(members) > 1 \
                else self.graph.nodes[members[0]].alone()
            self.costs[members] = found
        return found


class _ComponentSearch:
    """Beam search and local improvement for one component (see the module docstring)."""

    def __init__(self, planner: _Planner, component: list[int], lo: int, pos: list[int],
                 desc: list[int], anc: list[int]):
        self.planner = planner
        self.nodes = component
        self.index = {m: k for k, m in enumerate(component)}
        self.bit = {m: 1 << (pos[m] - lo) for m in component}
        self.desc = {m: desc[pos[m] - lo] for m in component}
        self.anc = {m: anc[pos[m] - lo] for m in component}
        self.edges = sorted(((i, j) for i in component for j in planner.consumers[i]
                             if j in self.index), key=lambda e: (e[1], e[0]))
        self.adjacent: dict[int, set[int]] = {m: set() for m in component}
        for i, j in self.edges:
            self.adjacent[i].add(j)
            self.adjacent[j].add(i)
        self.closures: dict[tuple[int, ...], tuple[int, int, int]] = {}

    def signature(self) -> tuple:
        """Everything the search reads, with nodes numbered within the component (a monotone
        renumbering: every comparison and tie-break comes out the same), so two components
        with one signature get the same groups: per node its cost data (producers and readers
        inside the component by number, all others alike; tiles numbered by first use),
        window bit and reachability; the candidate edges."""
        index = self.index
        tiles: dict = {}
        nodes = []
        for m in self.nodes:
            node = self.planner.graph.nodes[m]
            write = node.write
            nodes.append((
                node.head_fixed, node.member_fixed, node.factor, node.spill, node.live_tiles,
                node.write_may_stay, node.domain,
                tuple((s.ub, s.reg, index.get(s.producer, -1)) for s in node.reads),
                None if write is None else (write.ub, write.reg),
                tuple(index.get(r, -1) for r in node.readers),
                tuple(tiles.setdefault(t, len(tiles)) for t in node.tiles),
                self.bit[m], self.desc[m], self.anc[m]))
        return tuple(nodes), tuple((index[i], index[j]) for i, j in self.edges)

    def best(self) -> list[list[int]]:
        state = self.beam_search()
        if self.planner.improve_moves:
            state = self.improve(state)
        return [list(ms) for ms in state.members.values() if len(ms) > 1]

    # ------------------------------------------------------------------ beam search

    def beam_search(self) -> _State:
        start = _State(tuple(self.nodes), {m: (m,) for m in self.nodes},
                       sum(self.planner.cost((m,)) for m in self.nodes))
        beam = [start]
        for u, v in self.edges:
            children: dict[tuple, _State] = {}
            for state in beam:
                merged = self.merge(state, u, v)
                if self.planner.greedy:
                    chosen = merged if merged is not None and merged.cost < state.cost else state
                    children.setdefault(chosen.key(), chosen)
                    continue
                children.setdefault(state.key(), state)
                if merged is not None:
                    children.setdefault(merged.key(), merged)
            beam = sorted(children.values(), key=_RANK)[:self.planner.beam]
        return beam[0]

    def merge(self, state: _State, u: int, v: int) -> _State | None:
        labels = state.labels
        a, b = labels[self.index[u]], labels[self.index[v]]
        if a == b:
            return None
        members = state.members
        first, second = members[a], members[b]
        group = tuple(sorted(first + second))
        if not self.feasible(group, [ms for key, ms in members.items()
                                     if key != a and key != b and len(ms) > 1]):
            return None
        head = group[0]
        new_labels = list(labels)
        index = self.index
        for m in group:
            new_labels[index[m]] = head
        new_members = dict(members)
        del new_members[a], new_members[b]
        new_members[head] = group  # last, as the first node of the merged group
        cost = self.planner.cost
        return _State(tuple(new_labels), new_members,
                      state.cost - cost(first) - cost(second) + cost(group))

    def closure(self, group: tuple[int, ...]) -> tuple[int, int, int]:
        """``(bits, bits | descendants, bits | ancestors)`` of a group in the window, remembered."""
        found = self.closures.get(group)
        if found is None:
            mask = down = up = 0
            for m in group:
                mask |= self.bit[m]
                down |= self.desc[m]
                up |= self.anc[m]
            found = self.closures[group] = (mask, down | mask, up | mask)
        return found

    def feasible(self, group: tuple[int, ...], others: list[tuple[int, ...]]) -> bool:
        """Can ``group`` be a span beside ``others`` (no path leaves it and comes back)?"""
        mask, down, up = self.closure(group)
        if down & up & ~mask:
            return False
        closures = [self.closure(ms) for ms in others]
        changed = True
        while changed:  # paths through other groups: entering one reaches all it reaches
            changed = False
            for other_mask, other_down, other_up in closures:
                if down & other_mask and (down | other_down) != down:
                    down |= other_down
                    changed = True
                if up & other_mask and (up | other_up) != up:
                    up |= other_up
                    changed = True
            if down & up & ~mask:  # reachability only grows
                return False
        return True

    # ------------------------------------------------------------------ local improvement

    def improve(self, state: _State) -> _State:
        for _ in range(IMPROVE_ROUNDS):
            better = False
            for node in self.nodes:
                moved = self.best_move(state, node)
                if moved is not None:
                    state, better = moved, True
            if not better:
                break
        return state

    def best_move(self, state: _State, node: int) -> _State | None:
        """The cheapest of: ``node`` leaves its group, or joins a neighbouring group (a node
        alone can only join one)."""
        home = state.labels[self.index[node]]
        rest = tuple(m for m in state.members[home] if m != node)
        if rest and not self.connected(rest):
            return None
        targets = {state.labels[self.index[n]] for n in self.adjacent[node]} - {home}
        best = None
        for target in [*([None] if rest else []), *sorted(targets)]:
            candidate = self.move(state, node, home, rest, target)
            if candidate is not None and candidate.cost < (best or state).cost:
                best = candidate
        return best

    def move(self, state: _State, node: int, home: int, rest: tuple[int, ...],
             target: int | None) -> _State | None:
        joined = (node,) if target is None else tuple(sorted(state.members[target] + (node,)))
        others = [ms for key, ms in state.members.items()
                  if key not in (home, target) and len(ms) > 1]
        if len(rest) > 1 and not self.feasible(rest, others + ([joined] if len(joined) > 1 else [])):
            return None
        if len(joined) > 1 and not self.feasible(joined, others + ([rest] if len(rest) > 1 else [])):
            return None
        members = {k: ms for k, ms in state.members.items() if k not in (home, target)}
        labels = list(state.labels)
        for group in (rest, joined):
            if group:
                members[group[0]] = group
                for m in group:
                    labels[self.index[m]] = group[0]
        cost = state.cost - self.planner.cost(state.members[home]) + self.planner.cost(joined) \
            + (self.planner.cost(rest) if rest else 0) \
            - (self.planner.cost(state.members[target]) if target is not None else 0)
        return _State(tuple(labels), members, cost)

    def connected(self, group: tuple[int, ...]) -> bool:
        inside = set(group)
        seen = {group[0]}
        stack = [group[0]]
        while stack:
            for other in self.adjacent[stack.pop()] & inside:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        return len(seen) == len(inside)
