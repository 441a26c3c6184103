"""The cost model fusion planning minimizes: cycles of the segment's fusible ops on their unit.

A plan is a set of disjoint groups (each made one span); every other node runs alone. The cost
is the sum over nodes of the duration the target's fused-execution model gives it (the same
formula the simulator runs, :meth:`tilesched.target.model.Target.fused_cycles`):

- *overheads*: a node alone, or first in its span (the first member in program order: spans
  keep their members' order), pays ``head_fixed``; a later member ``member_fixed``;
- *local-buffer traffic*: a node's time is its slowest operand stream; a read stays in
  registers when its producer is in the same group, a write when every reader of the written
  tile is in the group and the tile is dead after the block (``write_may_stay``): the bytes
  never travel through the local buffer;
- *live tiles*: a tile is held in a register from the first member that touches it to the last;
  when more than ``live_tiles`` tiles are live at once the group pays ``spill`` cycles per extra
  tile (a store and a reload), charged to the member that raises the peak.

The per-op formula and the spill rule are the target's (:func:`~tilesched.target.model.fused_op_time`,
:meth:`~tilesched.target.model.FusionModel.span_spills`), the ones the simulator runs.

Merging two groups can lower the first two terms and raise the third, so a merge that looks good
locally can block a better one later: that is why :mod:`.search` searches instead of merging
greedily.
"""

from __future__ import annotations

from collections.abc import Iterable

from tilesched.schedule.fusion.graph import FusionGraph, FusionNode
from tilesched.target.model import FusionModel, fused_op_time


def group_cost(graph: FusionGraph, members: Iterable[int]) -> int:
    """Cycles of the nodes of one span (members in program order)."""
    ordered = sorted(members)
    inside = set(ordered)
    total = sum(_member_cycles(graph.nodes[index], inside, head=position == 0)
                for position, index in enumerate(ordered))
    head = graph.nodes[ordered[0]]
    spills = FusionModel(live_tiles=head.live_tiles).span_spills(
        [graph.nodes[index].tiles for index in ordered])
    return total + sum(count * graph.nodes[index].spill
                       for count, index in zip(spills, ordered, strict=True) if count)


def _member_cycles(node: FusionNode, inside: set[int], head: bool) -> int:
    streams = [stream.reg if stream.producer in inside else stream.ub for stream in node.reads]
    write = node.write
    if write is not None:
        stays = node.write_may_stay and all(r in inside for r in node.readers)
        streams.append(write.reg if stays else write.ub)
    return fused_op_time(node.head_fixed if head else node.member_fixed, node.factor, streams)


def plan_cost(graph: FusionGraph, groups: Iterable[Iterable[int]]) -> int:
    """Cycles of the segment's fusible nodes under a plan (nodes in no group run alone)."""
    grouped: set[int] = set()
    total = 0
    for members in groups:
        members = list(members)
        grouped.update(members)
        total += group_cost(graph, members)
    return total + sum(node.alone() for k, node in enumerate(graph.nodes)
                       if node.fusible and k not in grouped)
