"""Choosing the groups of one segment: planner, exact mode, hand-written groups, contiguity.

The planned groups (cost-guided search, the greedy baseline, or CP-SAT when it finds a cheaper
plan) and the groups written by hand (kept as written, never merged with planned ones) must all
become contiguous spans; :func:`split_until_contiguous` splits any that cannot into convex runs
and drops runs of one op, so a group that cannot be contiguous is never silently accepted (the
anchor's second bug). What changed in a hand-written group is reported back for a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.fusion.cost import plan_cost
from tilesched.schedule.fusion.exact import ExactPlan, exact_plan, supports
from tilesched.schedule.fusion.search import plan_greedy, plan_segment
from tilesched.schedule.fusion.spans import split_until_contiguous
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
    changed: dict[int, list[list[int]]] = field(default_factory=dict)  # hand-written id -> spans


def plan_segment_groups(segment: Segment, planner: str, beam: int, exact: bool, exact_size: int,
                        exact_seconds: int) -> SegmentPlan:
    """Plan, solve exactly if asked and small enough, then make every group a span."""
    graph = segment.graph
    heuristic = plan_greedy(graph) if planner == "greedy" else plan_segment(graph, beam)
    groups = heuristic.groups
    solved = None
    if exact and supports(graph, exact_size) and any(node.fusible for node in graph.nodes):
        solved = exact_plan(graph, exact_seconds, hint=heuristic.groups)
        if solved is not None and solved.cost < heuristic.cost:
            groups = solved.groups
    written = [sorted(members) for members in segment.pinned.values()]
    kept, order = split_until_contiguous(len(graph), graph.edges, groups + written)
    changed = {}
    for gid, members in segment.pinned.items():
        spans = [g for g in kept if set(g) <= set(members)]
        if spans != [sorted(members)]:
            changed[gid] = spans
    planned = [g for g in kept if not any(set(g) <= set(m) for m in segment.pinned.values())]
    return SegmentPlan(kept, order, heuristic.cost, plan_cost(graph, planned),
                       plan_cost(graph, []), solved, changed)
