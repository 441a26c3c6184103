"""The ``warp-pipeline`` pass: warp-group stage pipelining for AMD targets.

``tile.stage_border`` markers split a loop body (or straight-line code) into stages. The two
issuer groups of an AMD workgroup then run the stages one apart — the high group one stage
behind — so one group's LDS traffic overlaps the other's matrix work. For each pipeline:

1. form the stages and check them (:mod:`.stages`): located errors for nested pipelines, sync
   ops inside a stage, two barriers at one boundary, targets without two issuer groups;
2. find the LDS dependences between stages per pair of groups, at every distance, with exact
   slot disjointness (:mod:`tilesched.analysis.stage_dependences`), and make the fewest cluster
   barriers ``local`` that order them all (:mod:`tilesched.schedule.warp_barriers`; the anchor's
   rule with ``placement=anchor``). A pair no barrier can order (a buffer used by adjacent
   stages) is an error naming both stages, or with ``on-conflict=plain`` a warning and the
   pipeline is left unpipelined;
3. join back-to-back pipelines where safe (:mod:`.chains`);
4. emit prelude, cluster barriers, priorities and postlude (:mod:`.lowering`), then synchronize
   the rest of the function as ``insert-sync`` does (warp-pipelined spans left alone), so the
   result is race-free on its own.

The idea and the contract come from Triton's AMD ``WarpPipeliner`` / ``ConvertWarpPipeline``
(seed 003); see ``docs/warp-pipeline.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.analysis.lds_barriers import local_barrier_points
from tilesched.diagnostics import TileschedError
from tilesched.ir.blocks import functions, insert_before
from tilesched.ir.sync import make_local_barrier
from tilesched.ir.tile import StageBorderOp
from tilesched.schedule.warp_barriers import unmet
from tilesched.transforms.pass_base import TileContext, TilePass, option
from tilesched.transforms.warp_pipeline.barriers import (
    conflict_error,
    local_slots,
    pipeline_requirements,
)
from tilesched.transforms.warp_pipeline.chains import join_back_to_back
from tilesched.transforms.warp_pipeline.lowering import Plan, lower, remove_borders
from tilesched.transforms.warp_pipeline.stages import Pipeline, find_pipelines


@dataclass(frozen=True)
class WarpPipelinePass(TilePass):
    """Run tile.stage_border stages one apart on the two issuer groups of an AMD workgroup."""

    name = "warp-pipeline"
    families = frozenset({"barriers"})
    needs = frozenset({StageBorderOp.name})

    placement: str = option("minimum", "which cluster barriers become local: the fewest "
                            "(exact) or the anchor's rule", choices=("minimum", "anchor"),
                            tune=("minimum", "anchor"))
    on_conflict: str = option("error", "a buffer adjacent stages share: an error, or leave that "
                              "pipeline unpipelined (plain)", choices=("error", "plain"))
    back_to_back: bool = option(True, "leave out the postlude/prelude pair between adjacent "
                                "pipelines when safe", tune=(True, False))

    def run(self, module: ModuleOp, ctx: TileContext) -> None:
        target = ctx.target
        pipelines = [p for function in functions(module)
                     for p in find_pipelines(function.body.block, target)]
        plans = []
        for pipeline in pipelines:
            plan = self._plan(pipeline, ctx)
            if plan is None:
                remove_borders(pipeline)
            else:
                plans.append(plan)
        if self.back_to_back:
            ctx.remarks["warp_joined"] = join_back_to_back(plans, target)
        for plan in plans:
            lower(plan)
        ctx.remarks["warp_local_barriers"] = sum(len(plan.local) for plan in plans)
        if target.sync == "barriers":
            for function in functions(module):
                for op in local_barrier_points(function.body.block, target):
                    insert_before(op, [make_local_barrier()])

    def _plan(self, pipeline: Pipeline, ctx: TileContext) -> Plan | None:
        """The local slots of a pipeline, or None when it is not pipelined."""
        if pipeline.n < 2:
            return None
        if pipeline.loose:
            ctx.warn(f"{len(pipeline.loose)} op(s) after the last tile.stage_border do no work "
                     f"(index math): they run with stage '{pipeline.label(pipeline.n - 1)}', not "
                     f"as a stage of their own (add work or a border before them to change that)",
                     pipeline.loose[0])
        reqs = pipeline_requirements(pipeline, ctx.target)
        impossible = [r for r in reqs if not r.feasible]
        if impossible:
            first = min(impossible, key=lambda r: (r.distance, r.src))
            error = conflict_error(pipeline, first, hint=self.on_conflict == "error")
            if self.on_conflict == "error":
                raise error
            ctx.warn(f"{error.message}; left unpipelined (on-conflict=plain)", error.loc)
            return None
        local = local_slots(pipeline, reqs, self.placement)
        missed = unmet(reqs, pipeline.n, pipeline.circular, local)
        if missed:  # cannot happen: the placements meet every feasible requirement
            raise TileschedError(f"warp-pipeline: internal error, {len(missed)} LDS dependences "
                                 f"left unordered", None)
        return Plan(pipeline, local)


PASS = WarpPipelinePass
