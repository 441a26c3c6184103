"""Moving a segment's ops so each fusion group is one contiguous span.

The order of the graph nodes (ops with effects) comes from the planner or
:func:`tilesched.schedule.fusion.spans.split_until_contiguous`: it keeps every dependence the
analysis knows and makes each group contiguous. Pure ops (index math, views, slots,
allocations) are then placed by a stable topological sort over the whole segment: each group is
one unit, so a pure op is never left inside a span; one a member uses lands before the span,
others keep their place relative to the ops around them (the anchor's first bug was to treat
them as barriers instead).
"""

from __future__ import annotations

import heapq

from xdsl.ir import Operation

from tilesched.transforms.fuse_tiles.segments import Segment


def reorder_segment(segment: Segment, node_order: list[int], groups: list[list[int]]) -> None:
    """Reorder ``segment.ops`` in their block (see the module docstring)."""
    ops = segment.ops
    position = {op: k for k, op in enumerate(ops)}
    unit_of: dict[Operation, int] = {op: k for k, op in enumerate(ops)}
    members: dict[int, list[Operation]] = {k: [op] for k, op in enumerate(ops)}
    rank = {node: k for k, node in enumerate(node_order)}
    for group in groups:
        group_ops = [segment.nodes[k] for k in sorted(group, key=rank.__getitem__)]
        head = position[group_ops[0]]
        for op in group_ops:
            del members[unit_of[op]]
            unit_of[op] = head
        members[head] = group_ops
    edges: set[tuple[int, int]] = set()
    chain = [unit_of[segment.nodes[k]] for k in node_order]
    for a, b in zip(chain, chain[1:], strict=False):
        if a != b:
            edges.add((a, b))
    for op in ops:
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                if isinstance(owner, Operation) and owner in unit_of and unit_of[owner] != unit_of[op]:
                    edges.add((unit_of[owner], unit_of[op]))
    new_order = _stable_topological(members, edges)
    if new_order == ops:
        return
    block = ops[0].parent_block()
    anchor = ops[-1].next_op
    for op in ops:
        op.detach()
    for op in new_order:
        block.insert_op_before(op, anchor)


def _stable_topological(members: dict[int, list[Operation]], edges: set[tuple[int, int]]
                        ) -> list[Operation]:
    """Kahn's algorithm over units, always taking the ready unit that came first."""
    succs: dict[int, list[int]] = {u: [] for u in members}
    indegree = dict.fromkeys(members, 0)
    for a, b in edges:
        succs[a].append(b)
        indegree[b] += 1
    ready = [u for u, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    out: list[Operation] = []
    while ready:
        unit = heapq.heappop(ready)
        out.extend(members[unit])
        for nxt in succs[unit]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    if len(out) != sum(len(m) for m in members.values()):
        raise AssertionError("fuse-tiles: the span order contradicts a def-use edge")
    return out
