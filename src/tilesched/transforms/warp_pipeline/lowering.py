"""Emit a warp pipeline by the contract (DESIGN.md §2, "Warp pipelining").

Loop pipeline::

    sync.barrier local                 prelude: nothing pending enters the pipeline
    sync.cond_barrier "high"           phase shift: the high group runs one stage behind
    [sync.setprio P0]
    scf.for ... {
      stage 0
      [sync.setprio P1] sync.sched_barrier  sync.barrier [local]  sync.sched_barrier
      stage 1
      ...
      [sync.setprio P0] sync.sched_barrier  sync.barrier [local]  sync.sched_barrier   (wrap-around)
    }
    [sync.setprio 0]
    sync.cond_barrier "low"            postlude: the groups reconverge

A flat pipeline has the same shape without the wrap-around barrier (a barrier after its last
stage exists only when a local one is needed there, or it joins a following pipeline). An
existing ``sync.barrier`` at a boundary is that boundary's cluster barrier: kept in place, fenced
by ``sync.sched_barrier`` and made ``local`` when needed (a barrier at the top of a loop body
moves to its end, where the wrap-around barrier goes). ``setprio`` is emitted where the priority
changes (a stage without one runs at 0; a first flat stage that does no work gets none). Between back-to-back pipelines the postlude/prelude pair
is left out (:mod:`.chains` decides).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation

from tilesched.ir.blocks import insert_after, insert_before
from tilesched.ir.sync import make_barrier, make_cond_barrier, make_sched_barrier, make_setprio
from tilesched.transforms.warp_pipeline.stages import Pipeline, _does_work


@dataclass
class Plan:
    """How to emit one pipeline: its local slots and its neighbours."""

    pipeline: Pipeline
    local: set[int]
    prelude: bool = True
    postlude: bool = True
    junction: bool = False  # flat: a barrier after the last stage (it joins the next pipeline)


def lower(plan: Plan) -> None:
    """Rewrite the pipeline in place (borders removed)."""
    pipeline = plan.pipeline
    priorities = [stage.priority or 0 for stage in pipeline.stages]
    if not pipeline.circular and not any(_does_work(op) for op in pipeline.stages[0].ops):
        priorities[0] = 0  # a first flat stage doing nothing: no setprio just to undo it
    prioritized = any(priorities)
    if plan.prelude:
        insert_before(pipeline.first_op(), [make_barrier(local=True), make_cond_barrier("high")])
    if prioritized and priorities[0]:
        insert_before(pipeline.first_op(), [make_setprio(priorities[0])])
    n = pipeline.n
    for k in range(1, n):
        change = priorities[k] if prioritized and priorities[k] != priorities[k - 1] else None
        _cluster_barrier(pipeline, k, pipeline.stages[k - 1].border, k in plan.local, change)
    last = priorities[0] if pipeline.circular else priorities[-1]
    if pipeline.circular:
        change = priorities[0] if prioritized and priorities[0] != priorities[-1] else None
        end = pipeline.loop.body.block.last_op
        for op in pipeline.top:  # the top of the body is the wrap-around boundary: its end
            op.detach()
            insert_before(end, [op])
        _cluster_barrier(pipeline, 0, end, 0 in plan.local, change)
    elif n in plan.local or plan.junction or pipeline.barrier(n) is not None:
        _cluster_barrier(pipeline, n, pipeline.stages[-1].border, n in plan.local, None)
    after = []
    if prioritized and last:
        after.append(make_setprio(0))
    if plan.postlude:
        after.append(make_cond_barrier("low"))
    insert_after(pipeline.last_op(), after)
    remove_borders(pipeline)


def remove_borders(pipeline: Pipeline) -> None:
    for stage in pipeline.stages:
        if stage.border is not None and stage.border.parent is not None:
            stage.border.detach()
            stage.border.erase()


def _cluster_barrier(pipeline: Pipeline, slot: int, anchor: Operation, local: bool,
                     priority: int | None) -> None:
    """The barrier of ``slot``: the existing one fenced (and made local if needed), or a new one
    before ``anchor``; ``priority`` is set just before it when given."""
    prio = [make_setprio(priority)] if priority is not None else []
    existing = pipeline.barrier(slot)
    for op in pipeline.boundary.get(slot, ()):
        if op is not existing and op.name != "sync.sched_barrier":
            insert_before(op, [make_sched_barrier()])
            if op.name != "sync.wait_group" or existing is not None:
                insert_after(op, [make_sched_barrier()])
    waits = [op for op in pipeline.boundary.get(slot, ()) if op.name == "sync.wait_group"]
    if existing is None and waits:
        # the barrier goes after the wait (Triton's Membar puts one after each async_wait): the
        # copies the wait completes reach the other group there
        insert_after(waits[-1], [make_barrier(local), make_sched_barrier()])
        if prio:
            insert_before(waits[0], prio)
        return
    if existing is None:
        insert_before(anchor, prio + [make_sched_barrier(), make_barrier(local), make_sched_barrier()])
        return
    if local and "local" not in existing.properties:
        existing.properties["local"] = UnitAttr()
    insert_before(existing, prio + [make_sched_barrier()])
    insert_after(existing, [make_sched_barrier()])

