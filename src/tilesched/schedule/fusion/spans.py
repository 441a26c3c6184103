"""Orders in which fusion groups are contiguous spans, and splitting groups that cannot be.

Groups of a dependence DAG (nodes ``0..n-1`` in a topological order, edges forward) can all be
made contiguous exactly when the *quotient* graph (each group contracted to one node) is acyclic:
a node on a path between two members would have to be both after and before the span (a
non-convex group), and two groups each reaching the other would each have to come first.
:func:`span_order` then gives the order: Kahn's algorithm on the quotient, always taking the
ready node (or span) that came first, so an order that already works is kept.

:func:`split_until_contiguous` is what a group that cannot be contiguous becomes (never silently
accepted): it is split into *convex runs* (consecutive members in program order that no outside
path separates), runs of one op are dropped, and groups still on a quotient cycle are dissolved,
until the quotient is acyclic. Complexity: descendant sets as bitsets, ``O(n * e / w)``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def descendants(n: int, succs: Sequence[Sequence[int]]) -> list[int]:
    """Bitset of the nodes reachable from each node (edges point forward)."""
    desc = [0] * n
    for i in range(n - 1, -1, -1):
        mask = 0
        for j in succs[i]:
            mask |= desc[j] | (1 << j)
        desc[i] = mask
    return desc


def ancestors(n: int, preds: Sequence[Sequence[int]]) -> list[int]:
    """Bitset of the nodes that reach each node."""
    anc = [0] * n
    for i in range(n):
        mask = 0
        for j in preds[i]:
            mask |= anc[j] | (1 << j)
        anc[i] = mask
    return anc


def span_order(n: int, edges: Sequence[tuple[int, int]], groups: Sequence[Sequence[int]],
               late: bool = False) -> list[int] | None:
    """A topological order of ``0..n-1`` in which every group is contiguous, in program order
    inside, closest to the original order; None when the quotient graph has a cycle. A span
    takes the place of its first member, or with ``late`` of its last (ops between the members
    that can go first then do: a load the span does not need starts before it)."""
    unit = list(range(n))  # node -> unit id (a group takes its first or last member's id)
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    for group in groups:
        ordered = sorted(group)
        key = ordered[-1] if late else ordered[0]
        for node in ordered:
            del members[node]
            unit[node] = key
        members[key] = ordered
    edges_between_units = {(unit[i], unit[j]) for i, j in edges if unit[i] != unit[j]}
    order = units_in_stable_order(members, edges_between_units)
    return order if len(order) == n else None


def units_in_stable_order(members: dict[int, list[T]], edges: Iterable[tuple[int, int]]) -> list[T]:
    """Kahn's algorithm over units (keys of ``members``), always taking the ready unit with the
    smallest id, each unit emitting its members in turn; units left on a cycle are not emitted."""
    succs: dict[int, set[int]] = {u: set() for u in members}
    indegree = dict.fromkeys(members, 0)
    for a, b in edges:
        if b not in succs[a]:
            succs[a].add(b)
            indegree[b] += 1
    ready = [u for u, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order: list[T] = []
    while ready:
        u = heapq.heappop(ready)
        order.extend(members[u])
        for v in succs[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, v)
    return order


def convex_runs(group: Sequence[int], desc: Sequence[int], anc: Sequence[int]) -> list[list[int]]:
    """Split ``group`` (program order) into maximal runs no outside path separates."""
    runs: list[list[int]] = []
    current: list[int] = []
    mask = down = up = 0
    for node in sorted(group):
        new_mask, new_down, new_up = mask | (1 << node), down | desc[node], up | anc[node]
        if current and (new_down & new_up) & ~new_mask:
            runs.append(current)
            current, mask, down, up = [], 0, 0, 0
            new_mask, new_down, new_up = 1 << node, desc[node], anc[node]
        current.append(node)
        mask, down, up = new_mask, new_down, new_up
    if current:
        runs.append(current)
    return runs


def split_until_contiguous(n: int, edges: Sequence[tuple[int, int]],
                           groups: Sequence[Sequence[int]], late: bool = False
                           ) -> tuple[list[list[int]], list[int]]:
    """Groups that can all be contiguous (from ``groups``: convex runs of two or more members,
    groups left on a quotient cycle dissolved, latest first) and an order placing them as spans
    (:func:`span_order`; ``late`` places a span at its last member)."""
    succs: list[list[int]] = [[] for _ in range(n)]
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        succs[i].append(j)
        preds[j].append(i)
    desc, anc = descendants(n, succs), ancestors(n, preds)
    kept = [run for group in groups for run in convex_runs(group, desc, anc) if len(run) >= 2]
    while True:
        order = span_order(n, edges, kept, late)
        if order is not None:
            return kept, order
        kept.pop(_latest_on_cycle(n, edges, kept))


def _latest_on_cycle(n: int, edges: Sequence[tuple[int, int]], groups: list[list[int]]) -> int:
    """Index of a group on a cycle of the quotient graph (the one starting latest)."""
    unit = list(range(n))
    for k, group in enumerate(groups):
        for node in group:
            unit[node] = n + k
    graph: dict[int, set[int]] = {}
    for i, j in edges:
        if unit[i] != unit[j]:
            graph.setdefault(unit[i], set()).add(unit[j])
    on_cycle = _nodes_on_cycles(graph)
    candidates = [k for k in range(len(groups)) if n + k in on_cycle]
    return max(candidates, key=lambda k: min(groups[k])) if candidates else len(groups) - 1


def _nodes_on_cycles(graph: dict[int, set[int]]) -> set[int]:
    """Nodes in strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    found: set[int] = set()
    counter = 0
    for root in list(graph):
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.update(component)
    return found
