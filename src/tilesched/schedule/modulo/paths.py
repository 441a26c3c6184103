"""Path algorithms on the dependence graph: components, longest paths, recurrence groups.

- :func:`strongly_connected_components` (Tarjan) and :func:`subgraph`;
- :func:`longest_paths`: Bellman-Ford with edge weights ``separation - II * distance`` and
  positive-cycle detection (the ASAP schedule, heights, RecMII tests);
- :class:`RecurrenceGroup` / :func:`recurrence_groups`: the capacity-using nodes of each SCC, the
  units a modulo scheduler packs, and :func:`group_distance_matrix`, their pairwise longest
  paths at an II;
- :func:`earliest_times`: the least start times that keep given rows modulo II.

All work on the adjacency lists of :class:`~.graph.CompiledGraph` (``(other, separation,
distance)`` per edge).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tilesched.schedule.modulo.graph import CompiledGraph, GraphError

Adjacency = list[list[tuple[int, int, int]]]
"""``adj[u]`` lists ``(v, separation, distance)``: the shape of :attr:`CompiledGraph.succ`."""


def strongly_connected_components(adj: Adjacency) -> list[list[int]]:
    """Tarjan's SCC algorithm (iterative), O(V + E).

    Components come out in reverse topological order of the condensation (sinks first); each
    component lists its nodes in increasing index order. Tarjan, SIAM J. Comput. 1(2), 1972.
    """
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comps: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            u, i = work[-1]
            if i < len(adj[u]):
                work[-1] = (u, i + 1)
                v = adj[u][i][0]
                if index[v] < 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack[v] = True
                    work.append((v, 0))
                elif on_stack[v]:
                    low[u] = min(low[u], index[v])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[u])
            if low[u] == index[u]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == u:
                        break
                comps.append(sorted(comp))
    return comps


def subgraph(adj: Adjacency, nodes: list[int]) -> Adjacency:
    """The adjacency of ``nodes`` (renumbered ``0..len-1`` in the given order). O(V + E)."""
    local = {v: i for i, v in enumerate(nodes)}
    return [[(local[v], sep, d) for v, sep, d in adj[u] if v in local] for u in nodes]


NO_PATH = -(1 << 62)
"""The distance :func:`longest_paths` reports for nodes unreachable from ``sources``."""


def longest_paths(
    adj: Adjacency, ii: int, init: list[int] | None = None, sources: list[int] | None = None
) -> tuple[list[int], list[int] | None]:
    """Longest paths with edge weights ``separation - ii * distance`` (queue-based Bellman-Ford).

    Every node starts at ``init`` (default 0), so the result is the earliest schedule (ASAP) that
    respects all dependences at ``ii``. With ``sources``, only they start (at 0) and every other
    node starts at :data:`NO_PATH`: single- or multi-source longest paths. Returns ``(dist, None)``, or ``(partial dist, cycle)`` when
    a positive cycle exists (then no schedule at ``ii`` exists): ``cycle`` lists its nodes in edge
    order. O(V * E) worst case, near O(E) on the acyclic-heavy graphs of loop bodies.

    Cycle detection is Cherkassky & Goldberg's amortised parent-graph search ("Negative-cycle
    detection algorithms", Math. Prog. 85, 1999): after every ``V`` improvements the parent graph
    is searched for a cycle in O(V); any such cycle is positive, and one appears soon after a
    positive cycle is first traversed.
    """
    n = len(adj)
    if sources is not None:
        dist = [NO_PATH] * n
        for s in sources:
            dist[s] = 0
        queue = deque(sources)
        queued = [False] * n
        for s in sources:
            queued[s] = True
    else:
        dist = list(init) if init is not None else [0] * n
        queue = deque(range(n))
        queued = [True] * n
    parent = [-1] * n
    budget = n
    while queue:
        u = queue.popleft()
        queued[u] = False
        du = dist[u]
        for v, sep, d in adj[u]:
            nd = du + sep - ii * d
            if nd > dist[v]:
                dist[v] = nd
                parent[v] = u
                budget -= 1
                if budget <= 0:
                    cycle = parent_graph_cycle(parent)
                    if cycle is not None:
                        return dist, cycle
                    budget = n
                if not queued[v]:
                    queued[v] = True
                    queue.append(v)
    return dist, None


def parent_graph_cycle(parent: list[int]) -> list[int] | None:
    """A cycle of the forest-or-not ``parent`` pointers (``-1``: root), in edge order. O(V)."""
    mark = [-1] * len(parent)
    for start in range(len(parent)):
        v = start
        while v >= 0 and mark[v] < 0:
            mark[v] = start
            v = parent[v]
        if v >= 0 and mark[v] == start:
            cycle = [v]
            u = parent[v]
            while u != v:
                cycle.append(u)
                u = parent[u]
            cycle.reverse()
            return cycle
    return None


@dataclass(frozen=True)
class RecurrenceGroup:
    """The capacity-using nodes of one strongly connected component.

    ``members`` are node indices; ``comp`` is the whole SCC and ``adj`` its adjacency (local
    indices in ``comp`` order). A group of one member outside any cycle has no ``comp``.
    """

    members: tuple[int, ...]
    comp: tuple[int, ...] = ()
    adj: Adjacency = field(default_factory=list, compare=False, repr=False)

    @property
    def bounded(self) -> bool:
        """Whether dependences bound the members' relative start times (two or more members)."""
        return len(self.members) > 1

    @cached_property
    def _relaxation(self) -> tuple[list[tuple[int, np.ndarray, np.ndarray, np.ndarray]], list[int]]:
        """Incoming edges per node as arrays, nodes in a topological order of the
        zero-distance edges (nodes on zero-distance cycles last), and the members' local
        indices."""
        n = len(self.adj)
        indegree = [0] * n
        incoming: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for u, edges in enumerate(self.adj):
            for v, sep, d in edges:
                incoming[v].append((u, sep, d))
                indegree[v] += d == 0
        queue = deque(u for u in range(n) if indegree[u] == 0)
        order = []
        while queue:
            u = queue.popleft()
            order.append(u)
            for v, _, d in self.adj[u]:
                if d == 0:
                    indegree[v] -= 1
                    if indegree[v] == 0:
                        queue.append(v)
        placed = set(order)
        order += [u for u in range(n) if u not in placed]
        steps = [(v, *(np.array(column, dtype=np.int64) for column in zip(*incoming[v],
                                                                          strict=True)))
                 for v in order if incoming[v]]
        local = {v: i for i, v in enumerate(self.comp)}
        return steps, [local[v] for v in self.members]


def recurrence_groups(cg: CompiledGraph) -> list[RecurrenceGroup]:
    """One group per SCC holding capacity-using nodes, sources of the condensation first. O(V+E).

    Dependences between different SCCs never constrain rows modulo II (a successor SCC can be
    delayed by a multiple of II), so these groups are the units a modulo scheduler must pack.
    """
    groups = []
    for comp in reversed(strongly_connected_components(cg.succ)):
        members = tuple(v for v in comp if cg.usage[v])
        if len(members) > 1:
            groups.append(RecurrenceGroup(members, tuple(comp), subgraph(cg.succ, comp)))
        elif members:
            groups.append(RecurrenceGroup(members))
    return groups


def group_distance_matrix(group: RecurrenceGroup, ii: int) -> np.ndarray:
    """``D[i][j]``: the longest dependence path from member ``i`` to member ``j`` at ``ii``.

    Every schedule at ``ii`` has ``t(j) - t(i) >= D[i][j]``, and since ``D`` is closed under
    paths, starts meeting these pairwise bounds extend to the whole SCC. All members are
    sources at once: each pass relaxes every node's incoming edges in a topological order of
    the zero-distance edges (a vector operation over the members), so a pass settles every
    path whose loop-carried edges follow that order; passes repeat until nothing changes
    (one more than the carried edges any longest path takes out of order, typically 2-4).
    O(passes * E * k) arithmetic in O(passes * V) vector operations. Raises
    :class:`GraphError` below RecMII.
    """
    if not group.bounded:
        return np.zeros((1, 1), dtype=np.int64)
    steps, members = group._relaxation
    n, k = len(group.comp), len(members)
    dist = np.full((n, k), NO_PATH, dtype=np.int64)
    dist[members, np.arange(k)] = 0
    weighted = [(v, preds, sep - ii * d) for v, preds, sep, d in steps]
    for _ in range(min(n, 16) + 1):
        changed = False
        for v, preds, weight in weighted:
            best = (dist[preds] + weight[:, None]).max(axis=0)
            row = dist[v]
            if (best > row).any():
                np.maximum(row, best, out=row)
                changed = True
        if not changed:
            return np.ascontiguousarray(dist[members].T)
        if (dist[members, np.arange(k)] > 0).any():
            break  # a positive cycle through a member
    return np.array(_bellman_ford_distances(group, ii), dtype=np.int64)


def _bellman_ford_distances(group: RecurrenceGroup, ii: int) -> list[list[int]]:
    """:func:`group_distance_matrix` by one Bellman-Ford run per member (with positive-cycle
    detection), for the rare graphs whose longest paths need many passes."""
    local = {v: i for i, v in enumerate(group.comp)}
    rows = []
    for v in group.members:
        dist, cycle = longest_paths(group.adj, ii, sources=[local[v]])
        if cycle is not None:
            raise GraphError(f"II {ii} is below the recurrence bound")
        rows.append([dist[local[u]] for u in group.members])
    return rows


def group_distances(group: RecurrenceGroup, ii: int) -> list[list[int]]:
    """:func:`group_distance_matrix` as nested lists (for element-wise use in Python)."""
    return group_distance_matrix(group, ii).tolist()


def earliest_times(cg: CompiledGraph, ii: int, rows: list[int | None]) -> list[int]:
    """Least start times ``>= 0`` meeting every dependence with ``t(v) mod ii == rows[v]``.

    A Bellman-Ford fixpoint that rounds each node with a row up to that row; the constraints are
    monotone, so it converges to the least solution whenever one exists. The result is shifted
    down by a multiple of ``ii`` so the earliest start is below ``ii``. O(V * E) worst case.
    """
    n = cg.n
    t = [r if r is not None else 0 for r in rows]
    queue, queued = deque(range(n)), [True] * n
    limit = 1000 * (n + len(cg.edges)) + 100_000  # a safety net: feasible rows converge
    while queue:
        u = queue.popleft()
        queued[u] = False
        for v, sep, d in cg.succ[u]:
            need = t[u] + sep - ii * d
            if need > t[v]:
                if rows[v] is not None:
                    need += (rows[v] - need) % ii
                t[v] = need
                limit -= 1
                if limit < 0:
                    raise RuntimeError(f"rows admit no schedule at II {ii} (internal error)")
                if not queued[v]:
                    queued[v] = True
                    queue.append(v)
    shift = (min(t, default=0) // ii) * ii
    return [x - shift for x in t]
