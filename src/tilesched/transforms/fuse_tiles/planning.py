"""Choosing the groups of one segment: planner, exact mode, hand-written groups, contiguity.

The planned groups (cost-guided search, the greedy baseline, or CP-SAT when it finds a cheaper
plan) and the groups written by hand (kept as written, never merged with planned ones) must all
become contiguous spans; :func:`split_until_contiguous` splits any that cannot into convex runs
and drops runs of one op, so a group that cannot be contiguous is never silently accepted (the
anchor's second bug). Which spans come from which hand-written group is reported back, so the
pass can warn about the ones it had to split.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.fusion.block import BlockPlan, best_block_plan
from tilesched.schedule.fusion.cost import plan_cost
from tilesched.schedule.fusion.exact import ExactPlan, exact_plan, supports
from tilesched.schedule.fusion.search import plan_greedy, plan_segment
from tilesched.schedule.fusion.spans import split_until_contiguous
from tilesched.schedule.reorder.order_cost import Machine
from tilesched.transforms.fuse_tiles.segments import Segment


@dataclass
class SegmentPlan:
    """The groups of a segment (node indices) and a node order making each a span."""

    groups: list[list[int]]
    order: list[int]
    heuristic_cost: int = 0
    cost: int = 0
    baseline_cost: int = 0  # every fusible node alone
    exact: ExactPlan | None = None
    written: dict[int, int] = field(default_factory=dict)  # group index -> hand-written id
    block_cycles: int = 0  # the block-level estimate of the plan (all units)
    block_baseline: int = 0  # the same without planned groups


def plan_segment_groups(segment: Segment, planner: str, beam: int, exact: bool, exact_size: int,
                        exact_seconds: int, machine: Machine | None) -> SegmentPlan:
    """Plan, solve exactly if asked and small enough, keep only what does not lose cycles on
    the whole block (:func:`~tilesched.schedule.fusion.block.best_block_plan`), then make every
    group a span."""
    graph = segment.graph
    heuristic = plan_greedy(graph) if planner == "greedy" else plan_segment(graph, beam)
    groups = heuristic.groups
    solved = None
    if exact and supports(graph, exact_size) and any(node.fusible for node in graph.nodes):
        solved = exact_plan(graph, exact_seconds, hint=heuristic.groups)
        if solved is not None and solved.cost < heuristic.cost:
            groups = solved.groups
    written = [sorted(members) for members in segment.pinned.values()]

    def orderer(candidate: list[list[int]], late: bool):
        return split_until_contiguous(len(graph), graph.edges, candidate, late)

    if machine is None:  # whole-block=false: the plan as the cost model chose it
        chosen = BlockPlan(groups, False, 0, 0)
    else:
        chosen = best_block_plan(graph, groups, written, machine, orderer)
    kept, order = orderer(chosen.groups + written, chosen.late)
    written_ids = {}
    for index, group in enumerate(kept):
        for gid, members in segment.pinned.items():
            if set(group) <= set(members):
                written_ids[index] = gid
    planned = [g for k, g in enumerate(kept) if k not in written_ids]
    return SegmentPlan(kept, order, heuristic.cost, plan_cost(graph, planned),
                       plan_cost(graph, []), solved, written_ids, chosen.cycles,
                       chosen.baseline)
