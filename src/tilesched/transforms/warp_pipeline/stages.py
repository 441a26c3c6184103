"""Warp-pipeline stages from ``tile.stage_border`` markers, with the checks the contract asks for.

A border closes a stage: the ops before it, back to the previous border, form the stage.

- **Loop pipeline**: borders directly in an ``scf.for`` body. Stage 0 starts at the top of the
  body; ops after the last border that do work form one more stage (as Triton's last cluster).
- **Flat pipeline**: borders in straight-line code of any other block. Stage 0 reaches back to
  the block start, a sync op, or an op holding a pipeline (a pipelined loop: flat pipelines
  before and after it are separate); ops after the last border are not in the pipeline.

Sync ops may sit only *between* stages, i.e. before a stage's first op that does work or after
its last: a ``sync.barrier`` there is that boundary's cluster barrier (one at most; a barrier at
the top of a loop body is the wrap-around one); a ``sync.sched_barrier`` is kept there; a
``sync.wait_group`` (AMD async copies, Triton's ``async_wait``) is kept there before the cluster
barrier. A ``sync.commit_group`` stays inside its stage. (The
other sync ops an AMD target allows, ``cond_barrier`` and ``setprio``, are the pass's own.) Borders nested in a stage's regions (nested pipelines),
other sync ops in a pipeline, sync ops inside a stage and targets without two issuer groups are
bad input: :class:`~tilesched.diagnostics.TileschedError` at the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, memref, scf
from xdsl.ir import Block, Operation

from tilesched.diagnostics import TileschedError
from tilesched.ir.blocks import body_ops
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, StageBorderOp, ViewOp
from tilesched.target.model import Target

BOUNDARY_SYNC = ("sync.barrier", "sync.sched_barrier", "sync.wait_group")
IN_STAGE_SYNC = ("sync.commit_group",)  # closes a stage's async copies into a group: stays put


@dataclass
class Stage:
    """A stage: its label and priority (from its border) and its top-level ops."""

    label: str
    priority: int | None
    ops: list[Operation]
    border: StageBorderOp | None  # None: the trailing stage of a loop body


@dataclass
class Pipeline:
    """The stages of one loop body (``loop``) or one run of straight-line code.

    ``boundary[k]`` holds the sync ops at slot ``k``: before stage ``k``; slot 0 of a loop is the
    wrap-around (end of the body), slot ``n`` of a flat pipeline is after its last stage.
    """

    block: Block
    stages: list[Stage]
    loop: scf.ForOp | None = None
    boundary: dict[int, list[Operation]] = field(default_factory=dict)
    top: list[Operation] = field(default_factory=list)  # loop: sync ops before stage 0's work
    loose: list[Operation] = field(default_factory=list)  # loop: index math after the last border

    @property
    def n(self) -> int:
        return len(self.stages)

    @property
    def circular(self) -> bool:
        return self.loop is not None

    def barrier(self, slot: int) -> Operation | None:
        """The existing ``sync.barrier`` at a slot, if any."""
        return next((op for op in self.boundary.get(slot, ()) if op.name == "sync.barrier"), None)

    def first_op(self) -> Operation:
        """Where the pipeline starts in its block (the prelude goes before it)."""
        if self.loop is not None:
            return self.loop
        first = self.stages[0]
        return next((op for op in first.ops if _does_work(op)), first.border)

    def last_op(self) -> Operation:
        """Where the pipeline ends in its block (the postlude goes after it)."""
        return self.loop if self.loop is not None else self.stages[-1].border

    def label(self, k: int) -> str:
        return self.stages[k].label


def find_pipelines(block: Block, target: Target) -> list[Pipeline]:
    """Every pipeline in ``block`` and the blocks nested in it, outer first, in program order.
    Borders are checked; pipelines of fewer than two stages are returned too (the pass only
    removes their borders)."""
    found: list[Pipeline] = []
    _collect(block, target, found)
    return found


def _collect(block: Block, target: Target, found: list[Pipeline]) -> None:
    ops = body_ops(block)
    loop = block.parent_op()
    if isinstance(loop, scf.ForOp) and any(isinstance(op, StageBorderOp) for op in ops):
        _check_target(next(op for op in ops if isinstance(op, StageBorderOp)), target)
        found.append(_loop_pipeline(loop, ops))
        return
    for pipeline in _flat_pipelines(block, ops, target):
        found.append(pipeline)
    for op in ops:
        for region in op.regions:
            for inner in region.blocks:
                _collect(inner, target, found)


def _check_target(border: Operation, target: Target) -> None:
    if target.sync != "barriers" or len(target.issuers) != 2:
        raise TileschedError(
            f"warp pipelining needs an AMD target with two issuer groups (amd-gfx950, "
            f"amd-gfx1250); {target.name} synchronizes with {target.sync}: remove the "
            f"tile.stage_border markers or pass --target amd-gfx950", location_of(border))


def _loop_pipeline(loop: scf.ForOp, ops: list[Operation]) -> Pipeline:
    segments, borders = _segments(ops)
    trailing = segments.pop()
    if any(_does_work(op) for op in trailing):
        segments.append(trailing)
        borders.append(None)
        trailing = []
    pipeline = Pipeline(loop.body.block, [], loop)
    # index math after the last border is no stage of its own: it runs with the last stage
    pipeline.loose = [op for op in trailing
                      if not op.name.startswith("sync.") and not isinstance(op, scf.YieldOp)]
    n = len(segments)
    for k, (segment, border) in enumerate(zip(segments, borders, strict=True)):
        head, body, tail = _split_sync(segment)
        pipeline.stages.append(_stage(k, body, border))
        _add_boundary(pipeline, k % n, head)
        _add_boundary(pipeline, (k + 1) % n, tail)
        if k == 0:
            pipeline.top = head
    _add_boundary(pipeline, 0, _sync_only(trailing))
    _check_stages(pipeline)
    return pipeline


def _flat_pipelines(block: Block, ops: list[Operation], target: Target) -> list[Pipeline]:
    """Runs of borders in straight-line code, split at ops that hold a pipeline."""
    runs, current = [], []
    for op in ops:
        if op.regions and _holds_border(op):
            runs.append(current)
            current = []
        else:
            current.append(op)
    runs.append(current)
    pipelines = []
    for run in runs:
        if any(isinstance(op, StageBorderOp) for op in run):
            _check_target(next(op for op in run if isinstance(op, StageBorderOp)), target)
            pipelines.append(_flat_pipeline(block, run))
    return pipelines


def _flat_pipeline(block: Block, run: list[Operation]) -> Pipeline:
    segments, borders = _segments(run)
    segments.pop()  # after the last border: not in the pipeline
    first = segments[0]
    cut = max((i + 1 for i, op in enumerate(first) if _boundary_sync(op)), default=0)
    segments[0] = first[cut:]
    pipeline = Pipeline(block, [])
    for k, (segment, border) in enumerate(zip(segments, borders, strict=True)):
        head, body, tail = _split_sync(segment)
        pipeline.stages.append(_stage(k, body, border))
        _add_boundary(pipeline, k, head)
        _add_boundary(pipeline, k + 1, tail)
    _check_stages(pipeline)
    return pipeline


def _segments(ops: list[Operation]) -> tuple[list[list[Operation]], list[StageBorderOp]]:
    """The ops between borders (one more segment than borders: the trailing one)."""
    segments, borders, current = [], [], []
    for op in ops:
        if isinstance(op, StageBorderOp):
            segments.append(current)
            borders.append(op)
            current = []
        else:
            current.append(op)
    segments.append(current)
    return segments, borders


def _split_sync(segment: list[Operation]) -> tuple[list, list, list]:
    """Sync ops before the first op that does work, the stage's ops, sync ops after its last."""
    working = [i for i, op in enumerate(segment) if _does_work(op) or op.name in IN_STAGE_SYNC]
    if not working:
        return [op for op in segment if _boundary_sync(op)], \
            [op for op in segment if not _boundary_sync(op)], []
    first, last = working[0], working[-1]
    head = [op for op in segment[:first] if _boundary_sync(op)]
    tail = [op for op in segment[last + 1:] if _boundary_sync(op)]
    body = [op for i, op in enumerate(segment)
            if not _boundary_sync(op) or first <= i <= last]
    return head, body, tail


def _stage(k: int, ops: list[Operation], border: StageBorderOp | None) -> Stage:
    if border is None:
        return Stage(f"tail{k}", None, ops, None)
    priority = border.priority.value.data if border.priority is not None else None
    return Stage(border.label.data, priority, ops, border)


def _add_boundary(pipeline: Pipeline, slot: int, ops: list[Operation]) -> None:
    for op in ops:
        if op.name not in BOUNDARY_SYNC:
            raise TileschedError(f"'{op.name}' cannot be part of a warp pipeline (only "
                                 f"sync.barrier, sync.sched_barrier and sync.wait_group may sit "
                                 f"between stages, sync.commit_group inside one; "
                                 f"warp-pipeline writes the phase shift and priorities itself)",
                                 location_of(op))
        here = pipeline.boundary.setdefault(slot, [])
        if op.name == "sync.wait_group" and any(o.name == "sync.barrier" for o in here):
            raise TileschedError(
                "'sync.wait_group' after the sync.barrier of its warp-pipeline stage boundary: "
                "the copies it waits for reach the other group only at a barrier after it (put "
                "the wait first)", location_of(op))
        if op.name == "sync.barrier" and any(o.name == "sync.barrier" for o in here):
            raise TileschedError(
                "a second sync.barrier at one warp-pipeline stage boundary: a pipeline needs "
                "exactly one barrier per boundary (add an empty stage for a bubble)",
                location_of(op))
        here.append(op)


def _check_stages(pipeline: Pipeline) -> None:
    """No sync op inside a stage and no border in a stage's nested regions."""
    for stage in pipeline.stages:
        for op in stage.ops:
            if op.name.startswith("sync.") and op.name not in IN_STAGE_SYNC:
                raise TileschedError(
                    f"'{op.name}' inside warp-pipeline stage '{stage.label}': waits and barriers "
                    f"may only sit between stages", location_of(op))
            for inner in op.walk():
                if inner is op:
                    continue
                if isinstance(inner, StageBorderOp):
                    raise TileschedError(
                        f"tile.stage_border inside a nested region of warp-pipeline stage "
                        f"'{stage.label}': warp pipelines cannot be nested", location_of(inner))
                if inner.name.startswith("sync.") and inner.name not in IN_STAGE_SYNC:
                    raise TileschedError(
                        f"'{inner.name}' inside warp-pipeline stage '{stage.label}': waits and "
                        f"barriers may only sit between stages", location_of(inner))


def _holds_border(op: Operation) -> bool:
    return any(isinstance(inner, StageBorderOp) for inner in op.walk())


def _does_work(op: Operation) -> bool:
    """Does ``op`` touch memory or hold ops (as opposed to index math, views, allocations)?"""
    if op.name.startswith("sync.") or isinstance(op, StageBorderOp | ViewOp | SlotOp):
        return False
    if isinstance(op, arith.ConstantOp | affine.ApplyOp | memref.AllocOp):
        return False
    return not (op.name.startswith("arith.") and not op.regions)


def _sync_only(ops: list[Operation]) -> list[Operation]:
    return [op for op in ops if _boundary_sync(op)]


def _boundary_sync(op: Operation) -> bool:
    """A sync op that belongs between stages (all but a ``commit_group``, which stays in its
    stage after the async copies it closes)."""
    return op.name.startswith("sync.") and op.name not in IN_STAGE_SYNC
