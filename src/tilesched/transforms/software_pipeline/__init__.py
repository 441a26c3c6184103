"""The ``software-pipeline`` pass: prologue, steady state and epilogue from ``tile.stage`` / ``tile.order``.

For each ``scf.for`` whose body ops carry ``tile.stage = S`` and ``tile.order = K``
(written by ``modulo-schedule`` or by hand), inner loops first:

1. check the annotations and that the schedule keeps every dependence
   (``annotations``, ``analysis``, :func:`schedule_violations`);
2. give each buffer written in one stage and read in a later one as many slots
   as its lifetime needs, completion of asynchronous readers included
   (:mod:`tilesched.schedule.pipeline.slots`), within the target's capacity;
3. on group targets (cp.async), place one commit per async stage per iteration
   and before each consumer a ``wait_group`` with the exact in-flight count
   (:mod:`tilesched.schedule.pipeline.waits`); other targets get their
   synchronization from ``insert-sync``, run afterwards;
4. emit the prologue, a kernel ``scf.for`` and the epilogue (``emit``, ``codegen``):
   for a trip count only known at run time, ``scf.if T >= S-1`` selects the
   pipelined code, and a predicated short version runs smaller counts.

Ideas from TVM's ``InjectSoftwarePipeline`` and its async-stage RFC (the source
document of issue 5), and MLIR's ``scf::pipelineForLoop``; see
``docs/software-pipeline.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.analysis.fusion_annotations import refresh_fusion_groups
from tilesched.ir.tile import STAGE
from tilesched.transforms.pass_base import TileContext, TilePass, option
from tilesched.transforms.software_pipeline.annotations import annotated_loops, split_body
from tilesched.transforms.software_pipeline.pipeliner import pipeline_loop


@dataclass(frozen=True)
class SoftwarePipelinePass(TilePass):
    """Prologue, kernel and epilogue from tile.stage/tile.order: multi-buffers and exact waits."""

    name = "software-pipeline"
    needs = frozenset({STAGE})  # from modulo-schedule or written by hand

    unroll: int = option(0, "kernel unroll; 0: automatic (the slot count on flag targets)",
                         low=0, high=64, tune=(0, 1, 2))

    def run(self, module: ModuleOp, ctx: TileContext) -> None:
        """Check every annotated loop, then pipeline them inner first."""
        loops = annotated_loops(module)
        for loop in loops:  # validate every loop before rewriting any
            split_body(loop)
        for loop in loops:
            pipeline_loop(loop, ctx, self.unroll)
        # each whole copy of a span is a group; broken ones unmarked
        refresh_fusion_groups(module, ctx.target)


PASS = SoftwarePipelinePass
