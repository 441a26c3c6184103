"""Code-generation schema of a pipelined loop: where prologue, kernel and epilogue go.

Static trip count ``T`` (``S`` stages, ``K = T - S + 1`` kernel iterations)::

    prologue steps 0 .. S-2          (straight-line)
    scf.for over K // U kernel bodies of U steps each
    K mod U remaining kernel steps   (straight-line)
    epilogue steps T .. T+S-2        (straight-line)

With fewer than two kernel bodies everything is straight-line (a zero-trip loop
emits nothing). ``U`` is the kernel unroll (modulo variable expansion: the slot
indices of an unrolled body are constants, which flag targets need to give each
slot its own event ids).

Dynamic trip count (Rau et al. 1992, "kernel-only" code with a guard)::

    T = max(0, ceil((ub - lb) / step))
    scf.if T >= S-1 { prologue; kernel loop; remainder steps under scf.if; epilogue }
    else            { every step of trip counts 0 .. S-2, ops under scf.if T >= j+1 }
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from tilesched.ir.sync import make_wait_group
from tilesched.schedule.pipeline.waits import Item, Plan
from tilesched.transforms.software_pipeline.emit import IterCtx, PipelineEmitter


def emit_plan(emitter: PipelineEmitter, plan: Plan, unroll: int = 1,
              prefix: list[Operation] | None = None) -> list[Operation]:
    """The ops replacing the loop: constants, ``prefix``, then the pipelined code."""
    if plan.trip_relative:
        _emit_dynamic(emitter, plan, unroll)
    else:
        _emit_static(emitter, plan, unroll)
    constants = [op for op in emitter.constants if op.results[0].uses]
    return constants + (prefix or []) + emitter.math.out


def _absolute(items: list[Item], base: int) -> list[Item]:
    """Kernel items of the step whose counter is iteration ``base``, with absolute iterations."""
    return [Item(i.kind, i.ref, i.iteration + base, i.pending, i.guard) for i in items]


def _emit_static(emitter: PipelineEmitter, plan: Plan, unroll: int) -> None:
    absolute = IterCtx("abs")
    for step in plan.prologue:
        emitter.emit_items(step, absolute)
    if plan.kernel is not None:
        bodies = plan.kernel_trips // unroll
        done = 0
        if bodies >= 2:
            done = bodies * unroll
            lb = emitter.bounds.constant("lb")
            if emitter.bounds.unit_step:
                emitter.kernel_loop(plan.kernel, lb, lb + done, unroll)
            else:
                emitter.kernel_loop(plan.kernel, 0, done, unroll)
        for base in range(done, plan.kernel_trips):
            emitter.emit_items(_absolute(plan.kernel, base), absolute)
    for step in plan.epilogue:
        emitter.emit_items(step, absolute)
    _drain(emitter, plan.drain)


def _emit_dynamic(emitter: PipelineEmitter, plan: Plan, unroll: int) -> None:
    m = emitter.math
    trips = trip_count_value(emitter)
    lead = plan.stages - 1

    def pipelined() -> None:
        for step in plan.prologue:
            emitter.emit_items(step, IterCtx("abs"))
        _dynamic_kernel(emitter, plan, trips, unroll)
        for step in plan.epilogue:
            emitter.emit_items(step, IterCtx("trip", trips))
        _drain(emitter, plan.drain)

    def short() -> None:
        for step in plan.short:
            emitter.emit_guarded(step, trips)
        _drain(emitter, plan.short_drain)

    if lead == 0:
        pipelined()
        return
    enough = m.emit(arith.CmpiOp(trips, m.const(lead), "sge"))
    has_short = any(plan.short) or plan.short_drain
    m.emit(emitter.make_if(enough, pipelined, short if has_short else None))


def _dynamic_kernel(emitter: PipelineEmitter, plan: Plan, trips: SSAValue, unroll: int) -> None:
    """Kernel loop over ``T - (S-1)`` steps; with ``unroll`` > 1 the remaining
    ``(T - S + 1) mod unroll`` steps follow under ``scf.if``."""
    m, bounds = emitter.math, emitter.bounds
    lead = plan.stages - 1
    if unroll == 1:
        if bounds.unit_step:
            emitter.kernel_loop(plan.kernel, bounds.lb, m.add(bounds.ub, -lead))
        else:
            emitter.kernel_loop(plan.kernel, 0, m.add(trips, -lead))
        return
    steps = m.val(m.add(trips, -lead))
    rest = m.rem(steps, unroll)
    whole = m.sub(steps, rest)
    start = bounds.lb if bounds.unit_step else m.const(0)
    end = m.plus(start, whole)
    emitter.kernel_loop(plan.kernel, start, end, unroll)
    for u in range(unroll - 1):
        cond = m.emit(arith.CmpiOp(rest, m.const(u), "sgt"))
        counter = m.val(m.add(end, u))
        m.emit(emitter.make_if(cond, lambda c=counter: emitter.emit_items(
            plan.kernel, IterCtx("kernel", c))))


def trip_count_value(emitter: PipelineEmitter) -> SSAValue:
    """``T = max(0, ceil((ub - lb) / step))`` as index arithmetic."""
    m, bounds = emitter.math, emitter.bounds
    span = m.emit(arith.MaxSIOp(m.val(m.sub(bounds.ub, bounds.lb)), m.const(0)))
    trips = span if bounds.unit_step else m.emit(arith.CeilDivSIOp(span, bounds.step))
    trips.name_hint = "trips"
    return trips


def _drain(emitter: PipelineEmitter, queues: list[int]) -> None:
    """A final ``wait_group 0`` for queues with groups nothing waited for."""
    for queue in queues:
        emitter.math.emit(make_wait_group(queue, 0))
