"""The block-level estimate fusion plans are judged by: the segment's cycles on every unit.

The cost model of :mod:`.cost` prices only the fusible ops on their own unit. Fusing also
reorders the segment: an op that reads a member's result (a store, a copy to another unit)
moves behind the whole span, so the other units start later. PTOAS's
``op_scheduling_natural_split_e2e`` (test/lit/tile_fusion) is the case: fusing [A, B, C] across
the store of A's result made the kernel 27% slower than no fusion (issue 27, item 4).

:func:`block_cycles` times a plan as the simulator will run it: each group contracted to one
node (its unit, its fused cycles by :func:`.cost.group_cost`), every other node with its own
unit and cycles, in the plan's order, the flags ``insert-sync`` will plan and their waits
(:func:`tilesched.schedule.reorder.order_cost.evaluate_order`, which follows the simulator's
rules exactly for straight-line code; a loop body that is one segment is replayed for two
iterations with the back-edge flags of its loop-carried dependences): the critical path over
all units.

:func:`best_block_plan` keeps the planned groups when they do not lose cycles on the block
against no fusion; otherwise it refines them (a group loses its first or last member, is
cut in two, or is dropped) while the estimate drops, and returns no fusion if nothing refined
beats it.
Hand-written groups (``pinned``) are never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tilesched.schedule.fusion.cost import group_cost
from tilesched.schedule.fusion.graph import FusionGraph
from tilesched.schedule.reorder.order_cost import Machine, evaluate_order
from tilesched.schedule.reorder.segment import Segment

MAX_REFINEMENTS = 64  # block evaluations spent refining a plan that loses cycles

Orderer = Callable[[list[list[int]], bool], tuple[list[list[int]], list[int]]]


def block_cycles(graph: FusionGraph, groups: Sequence[Sequence[int]], order: Sequence[int],
                 machine: Machine) -> int:
    """Estimated cycles of the segment with ``groups`` as spans, nodes in ``order`` (a
    topological order in which each group is contiguous)."""
    node_of: dict[int, int] = {}
    group_of = {m: k for k, members in enumerate(groups) for m in members}
    units: list[str | None] = []
    durations: list[int] = []
    inline: list[bool] = []
    for index in order:
        group = group_of.get(index)
        if group is not None and groups[group][0] in node_of:
            node_of[index] = node_of[groups[group][0]]
            continue
        head = groups[group][0] if group is not None else index
        node_of[head] = node_of[index] = len(units)
        node = graph.nodes[index]
        units.append(node.unit)
        inline.append(node.inline)
        if group is not None and all(graph.nodes[m].fusible for m in groups[group]):
            durations.append(group_cost(graph, groups[group]))
        elif group is not None:  # a hand-written group: its members' durations as annotated
            durations.append(sum(graph.nodes[m].cycles for m in groups[group]))
        else:
            durations.append(node.alone() if node.fusible else node.cycles)
        if group is not None:  # later members take an issue slot each, no time on the unit
            units.extend([node.unit] * (len(groups[group]) - 1))
            inline.extend([node.inline] * (len(groups[group]) - 1))
            durations.extend([0] * (len(groups[group]) - 1))
    deps = sorted({(node_of[i], node_of[j]) for i, j in graph.edges if node_of[i] != node_of[j]})
    carried = None if graph.carried is None else sorted(
        {(node_of[i], node_of[j], d) for i, j, d in graph.carried})
    segment = Segment(units, durations, inline, deps=deps, carried=carried, trips=graph.trips)
    return evaluate_order(segment, list(range(len(units))), machine).makespan


@dataclass
class BlockPlan:
    """The groups chosen on the block, where spans go, and the block estimates."""

    groups: list[list[int]]
    late: bool  # spans placed at their last member (else their first)
    cycles: int
    baseline: int  # no planned group, original order


def best_block_plan(graph: FusionGraph, planned: list[list[int]], pinned: list[list[int]],
                    machine: Machine, orderer: Orderer) -> BlockPlan:
    """The planned groups, refined until they do not lose cycles on the block against no
    fusion (module docstring). ``orderer(groups, late)`` returns the groups that can be spans
    and an order making them contiguous, each span at its first member or (``late``) its last;
    both placements are estimated and the faster kept."""
    placement: dict[tuple, bool] = {}

    def estimate(groups: list[list[int]]) -> int:
        timed = []
        for late in (False, True):
            kept, order = orderer(groups + pinned, late)
            timed.append((block_cycles(graph, kept, order, machine), late))
            if not kept:
                break
        cycles, late = min(timed)
        placement[_key(groups)] = late
        return cycles

    def result(groups: list[list[int]], cycles: int) -> BlockPlan:
        return BlockPlan(groups, placement.get(_key(groups), False), cycles, baseline)

    baseline = estimate([])
    best, best_cycles = planned, estimate(planned) if planned else baseline
    if best_cycles <= baseline:
        return result(best, best_cycles)
    budget = MAX_REFINEMENTS
    while budget > 0:
        candidates = _refinements(best)
        found = None
        for candidate in candidates[:budget]:
            cycles = estimate(candidate)
            if cycles < best_cycles and (found is None or cycles < found[1]):
                found = (candidate, cycles)
        budget -= len(candidates)
        if found is None:
            break
        best, best_cycles = found
        if best_cycles <= baseline:
            return result(best, best_cycles)
    empty: list[list[int]] = []
    estimate(empty)
    return result(empty, baseline)


def _refinements(groups: list[list[int]]) -> list[list[list[int]]]:
    """Plans one step away from ``groups``: a group without its first or last member (in
    program order), cut in two (each part two or more members), or dropped."""
    found = []
    for k, group in enumerate(groups):
        others = groups[:k] + groups[k + 1:]
        if len(group) > 2:
            found.append(others + [group[1:]])
            found.append(others + [group[:-1]])
        found.extend(others + [group[:cut], group[cut:]] for cut in range(2, len(group) - 1))
        found.append(others)
    return found


def _key(groups: list[list[int]]) -> tuple:
    return tuple(map(tuple, groups))
