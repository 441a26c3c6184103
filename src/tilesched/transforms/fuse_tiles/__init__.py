"""The ``fuse-tiles`` pass: fuse chains of vector tile ops into contiguous spans, mark last uses.

For every block of every function (docs/fuse-tiles.md, DESIGN.md §2 Fusion contract):

1. hand-written fusion annotations are checked (exit 2 with ``file:line:col`` when malformed);
2. the block is cut at hard boundaries into segments, and each segment becomes a fusion graph
   (:mod:`.segments`): fusible vector compute ops, direct dataflow edges, every dependence;
3. groups are planned (:mod:`tilesched.schedule.fusion`: cost-guided search, or ``planner=greedy``;
   ``exact=true`` solves small segments with CP-SAT and keeps its plan when cheaper), then
   judged on the whole block, every unit (:mod:`tilesched.schedule.fusion.block`): a plan that
   would lose cycles against no fusion is refined or dropped;
4. the segment is reordered so each group is one contiguous span, pure ops moved out of spans
   (:mod:`.reorder`); a group that cannot be contiguous is split into spans or dropped;
5. groups are numbered per function (``tile.fusion_group``, ``tile.fusion_order`` in span order)
   and every member gets its ``tile.last_use`` flags from the element-exact liveness analysis.

Ideas from PTOAS's tile fusion (seed 002: FusionPlan, OpScheduling, MarkLastUse), without its
three bugs: pure ops never block a move, split groups are never accepted, and no group crosses
an op that scheduling cannot move across.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from tilesched.analysis.fusion_annotations import (
    annotation_errors,
    global_spaces,
    group_id,
    mark_last_use,
    set_group,
    strip,
)
from tilesched.analysis.fusion_liveness import function_liveness
from tilesched.analysis.fusion_semantics import COMPUTE_OPS, is_unknown, op_semantics
from tilesched.diagnostics import TileschedErrors
from tilesched.ir.blocks import body_ops, functions
from tilesched.ir.tile import FUSION_GROUP, FUSION_ORDER, LAST_USE
from tilesched.schedule.reorder.order_cost import Machine
from tilesched.target.model import Target
from tilesched.transforms.fuse_tiles.planning import SegmentPlan, plan_segment_groups
from tilesched.transforms.fuse_tiles.reorder import reorder_segment
from tilesched.transforms.fuse_tiles.segments import block_segments
from tilesched.transforms.pass_base import TileContext, TilePass, option


@dataclass(frozen=True)
class FuseTilesPass(TilePass):
    """Fuse chains of vector tile ops into contiguous spans and mark each operand's last use."""

    name = "fuse-tiles"
    role = "optional"
    families = frozenset({"flags"})  # insert-sync keeps spans whole for flag targets
    needs = frozenset(op.name for op in COMPUTE_OPS)  # nothing to fuse without a compute op
    provides = frozenset({FUSION_GROUP, FUSION_ORDER, LAST_USE})

    planner: str = option("search", "search: cost-guided beam search; greedy: the plain greedy "
                          "baseline", choices=("search", "greedy"))
    beam: int = option(24, "plans the search keeps per step", low=1, high=64)
    exact: bool = option(False, "also plan segments of at most exact-size fusible ops with CP-SAT")
    exact_size: int = option(32, "largest segment (fusible ops) planned exactly", low=2, high=64)
    exact_seconds: int = option(10, "CP-SAT time limit per segment", low=1, high=3600)
    whole_block: bool = option(True, "judge plans on the whole block, every unit (never slower "
                               "than no fusion); false: by the fusible ops' cycles alone")

    @classmethod
    def applies_to(cls, target: Target) -> bool:
        """Flag targets with a unit that runs fused spans (a ``fusion`` table in the TOML)."""
        return target.sync in cls.families and any(u.fusion is not None
                                                   for u in target.units.values())

    def run(self, module: ModuleOp, ctx: TileContext) -> None:
        errors = annotation_errors(module)
        if errors:
            raise TileschedErrors(errors)
        if not self.applies_to(ctx.target):
            ctx.warn(f"fuse-tiles: target '{ctx.target.name}' has no unit that runs fused spans "
                     "(a 'fusion' table of a flags target); the program is left as it is")
            return
        report = {"groups": 0, "fused_ops": 0, "cost_before": 0, "cost_after": 0,
                  "heuristic_cost": 0, "exact_segments": 0, "exact_optimal": 0,
                  "block_cycles": 0, "block_baseline": 0}
        for function in functions(module):
            facts = function_liveness(function, global_spaces=global_spaces(ctx.target))
            written = _written_groups(function)
            groups: list[list[Operation]] = []
            spans: dict[int, list[list[Operation]]] = {gid: [] for gid in written}
            for block in _blocks(function):
                groups.extend(self.fuse_block(block, ctx, facts, report, spans))
            _warn_split(written, spans, ctx)
            _number(groups)
            mark_last_use(function, ctx.target)
        report["groups"] = sum(1 for _ in _heads(module))
        ctx.remarks["fuse_tiles"] = report

    def fuse_block(self, block: Block, ctx: TileContext, facts, report: dict,
                   spans: dict[int, list[list[Operation]]]) -> list[list[Operation]]:
        """Plan and schedule every segment of ``block``; returns its groups (ops in span order)
        and records in ``spans`` the spans kept from each hand-written group."""
        for op in body_ops(block):
            if is_unknown(op):
                ctx.remark(f"fuse-tiles: {op_semantics(op).reason}", op)
        found = []
        machine = Machine.of(ctx.target) if self.whole_block else None
        for segment in block_segments(block, ctx.target, facts):
            for message, op in segment.remarks:
                ctx.remark(message, op)
            plan = plan_segment_groups(segment, self.planner, self.beam, self.exact,
                                       self.exact_size, self.exact_seconds, machine)
            _account(plan, report)
            for op in segment.nodes:
                strip(op)
            if plan.groups:
                reorder_segment(segment, plan.order, plan.groups)
            rank = {node: k for k, node in enumerate(plan.order)}
            for index, group in enumerate(plan.groups):
                ops = [segment.nodes[k] for k in sorted(group, key=rank.__getitem__)]
                found.append(ops)
                if index in plan.written:
                    spans[plan.written[index]].append(ops)
        return found


def _written_groups(function) -> dict[int, list[Operation]]:
    """Hand-written groups of ``function``: id -> ops in program order."""
    written: dict[int, list[Operation]] = {}
    for op in function.walk():
        if group_id(op) is not None:
            written.setdefault(group_id(op), []).append(op)
    return written


def _warn_split(written: dict[int, list[Operation]], spans: dict[int, list[list[Operation]]],
                ctx: TileContext) -> None:
    """A hand-written group that did not stay one span is split or dropped: say so."""
    for gid, ops in sorted(written.items()):
        kept = spans[gid]
        if len(kept) == 1 and len(kept[0]) == len(ops):
            continue
        if kept:
            ctx.warn(f"fuse-tiles: fusion group {gid} cannot be one contiguous span (an op it "
                     f"cannot move across sits between its members); split into {len(kept)} "
                     f"span(s) of {', '.join(str(len(s)) for s in kept)} ops", ops[0])
        else:
            ctx.warn(f"fuse-tiles: fusion group {gid} cannot be one contiguous span and no part "
                     "of two or more ops can; its annotations are removed", ops[0])


def _blocks(function) -> list[Block]:
    return [block for op in function.walk() for region in op.regions for block in region.blocks]


def _number(groups: list[list[Operation]]) -> None:
    """Group ids 0, 1, ... in program order of their first op; orders in span order."""
    if not groups:
        return
    function = groups[0][0].get_toplevel_object()
    position = {op: k for k, op in enumerate(function.walk())}
    for gid, members in enumerate(sorted(groups, key=lambda g: position[g[0]])):
        for order, op in enumerate(members):
            set_group(op, gid, order)


def _heads(module: ModuleOp):
    return (op for op in module.walk() if FUSION_ORDER in op.attributes
            and op.attributes[FUSION_ORDER].value.data == 0)


def _account(plan: SegmentPlan, report: dict) -> None:
    report["fused_ops"] += sum(len(g) for g in plan.groups)
    report["cost_before"] += plan.baseline_cost
    report["cost_after"] += plan.cost
    report["heuristic_cost"] += plan.heuristic_cost
    report["block_cycles"] += plan.block_cycles
    report["block_baseline"] += plan.block_baseline
    if plan.exact is not None:
        report["exact_segments"] += 1
        report["exact_optimal"] += int(plan.exact.optimal)


PASS = FuseTilesPass
