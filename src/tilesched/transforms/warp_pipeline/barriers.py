"""Which cluster barriers of a pipeline must be ``local``: requirements from the LDS dependence
analysis (:mod:`tilesched.analysis.stage_dependences`), placed by
:mod:`tilesched.schedule.warp_barriers`; pairs no barrier can order become located errors."""

from __future__ import annotations

from xdsl.ir import Operation

from tilesched.analysis.stage_dependences import StageAccess, StagePair, stage_accesses, stage_pairs
from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.schedule.warp_barriers import (
    Requirement,
    anchor_placement,
    minimum_placement,
    requirement,
)
from tilesched.target.model import Target
from tilesched.transforms.warp_pipeline.stages import Pipeline

PLACEMENTS = {"minimum": minimum_placement, "anchor": anchor_placement}


def pipeline_accesses(pipeline: Pipeline, target: Target) -> list[StageAccess]:
    return stage_accesses([stage.ops for stage in pipeline.stages], target)


def requirements_of(pairs: list[StagePair]) -> list[Requirement]:
    """One requirement per conflicting pair and group combination."""
    return [requirement(p.x.stage, p.distance, p.groups, p.x.asynchronous, tag=p) for p in pairs]


def pipeline_requirements(pipeline: Pipeline, target: Target) -> list[Requirement]:
    pairs = stage_pairs(pipeline_accesses(pipeline, target), pipeline.n, pipeline.loop)
    return requirements_of(pairs)


def existing_local(pipeline: Pipeline) -> frozenset[int]:
    """Slots whose existing barrier is already local."""
    return frozenset(slot for slot in pipeline.boundary
                     if (bar := pipeline.barrier(slot)) is not None and "local" in bar.properties)


def local_slots(pipeline: Pipeline, reqs: list[Requirement], placement: str) -> set[int]:
    """The slots to make local (beyond those already local), by ``placement``."""
    chosen = PLACEMENTS[placement](reqs, pipeline.n, pipeline.circular, existing_local(pipeline))
    return chosen | set(existing_local(pipeline))


def conflict_error(pipeline: Pipeline, req: Requirement, hint: bool = True) -> TileschedError:
    """The located error for a requirement no barrier placement can meet (``hint``: say how
    to leave the pipeline unpipelined instead)."""
    pair: StagePair = req.tag
    x, y = pair.x, pair.y
    buf = _buffer(x)
    sx, sy = pipeline.label(x.stage), pipeline.label(y.stage % pipeline.n)
    if pair.groups is None:
        message = (f"'{y.op.name}' uses {buf}, which the LDS op '{x.op.name}' accesses earlier "
                   f"in the same warp-pipeline stage '{sx}': an LDS op is complete only at the "
                   f"next local barrier, so the consumer must sit in a later stage")
    elif pair.distance == 0:
        message = (f"warp-pipeline stage '{sx}' accesses {buf} twice ('{x.op.name}', then "
                   f"'{y.op.name}') in a way the other issuer group sees: it runs the stage one "
                   f"stage later, so no barrier can order the two; split them into two stages")
    else:
        message = (f"warp-pipeline stages '{sx}' and '{sy}' both use {buf} ('{x.op.name}', "
                   f"'{y.op.name}') and run at the same time (the high group one stage behind): "
                   f"no barrier can order them; give {buf} one slot per stage in flight "
                   f"(tile.slot with i mod N)")
    if hint:
        message += ("; or pass on-conflict=plain to leave this "
                    + ("loop" if pipeline.circular else "pipeline") + " unpipelined")
    return TileschedError(message, location_of(y.op), note=_note(x.op))


def _buffer(access: StageAccess) -> str:
    hint = access.region.root.name_hint
    return f"%{hint}" if hint else "a buffer"


def _note(op: Operation) -> str | None:
    loc = location_of(op)
    return f"{loc}: note: '{op.name}' is here" if loc else None
