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

from xdsl.ir import Operation

from tilesched.schedule.fusion.spans import units_in_stable_order
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
    new_order = units_in_stable_order(members, edges)
    if len(new_order) != len(ops):
        raise AssertionError("fuse-tiles: the span order contradicts a def-use edge")
    if new_order == ops:
        return
    block = ops[0].parent_block()
    anchor = ops[-1].next_op
    for op in ops:
        op.detach()
    for op in new_order:
        block.insert_op_before(op, anchor)
