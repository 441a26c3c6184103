"""Software-pipelining one annotated ``scf.for``: check, allocate slots, plan waits, emit code."""

from __future__ import annotations

import math

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.effects import effects_of
from tilesched.diagnostics import TileschedError
from tilesched.ir.affine import constant_value
from tilesched.ir.sync import make_commit, make_wait_group
from tilesched.ir.text import location_of
from tilesched.ir.tile import ORDER, STAGE
from tilesched.ir.types import element_bytes, memory_space, memref_shape
from tilesched.schedule.pipeline.slots import SlotChoice, cap_slots, choose_slots
from tilesched.schedule.pipeline.stages import (
    Edge,
    schedule_violations,
    stage_count,
    trip_count,
)
from tilesched.schedule.pipeline.waits import Plan, build_template, dynamic_plan, static_plan
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.software_pipeline.analysis import LoopModel, async_before, build_model
from tilesched.transforms.software_pipeline.annotations import is_pure, split_body
from tilesched.transforms.software_pipeline.checks import (
    check_value_flow,
    raise_violations,
    warn_async_marks,
)
from tilesched.transforms.software_pipeline.codegen import emit_plan
from tilesched.transforms.software_pipeline.emit import MultiBuffer, PipelineEmitter


def pipeline_loop(loop: scf.ForOp, env: TileContext, option: int = 0) -> None:
    """Replace ``loop`` by its software-pipelined form (see the module docstring)."""
    parts = split_body(loop, check_orders=False)
    for alloc in parts.allocs:
        alloc.detach()
        loop.parent_block().insert_op_before(alloc, loop)
    model = build_model(loop, parts, env.target)
    check_value_flow(model)
    warn_async_marks(model, env)
    raise_violations(model, schedule_violations(model.ops, model.edges))
    choice = choose_slots(model.ops, model.edges, model.buffers)
    edges = model.edges + choice.edges
    raise_violations(model, schedule_violations(model.ops, choice.edges))
    choice = cap_slots(choice, static_trip_count(loop))
    buffers = allocate_slots(model, choice, env)
    template = build_template(model.ops, edges)
    plan = make_plan(loop, model, template, edges)
    unroll = unroll_factor(choice, env, option)
    emitter = PipelineEmitter(loop, parts.staged, template, buffers)
    new_ops = emit_plan(emitter, plan, unroll, _complete_earlier_async(model, env))
    _inherit_annotations(loop, new_ops)
    block = loop.parent_block()
    block.insert_ops_before(new_ops, loop)
    loop.detach()
    loop.erase()
    for root in buffers:
        if not root.uses:
            root.owner.detach()
            root.owner.erase()
    env.remarks.setdefault("software-pipeline", []).append(_remark(model, choice, plan))


def unroll_factor(choice: SlotChoice, env: TileContext, option: int) -> int:
    """Kernel unroll: the option when given, else on flag targets the least common
    multiple of the slot counts (each slot then has constant indices, so insert-sync can
    give every slot its own event ids and the stages overlap), else 1."""
    if option > 0:
        return option
    if env.target.sync != "flags":
        return 1
    return math.lcm(1, *choice.slots.values())


def static_trip_count(loop: scf.ForOp) -> int | None:
    """The loop's trip count when its bounds and step are constants, else None."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if None in (lb, ub, step) or step <= 0:
        return None
    return trip_count(lb, ub, step)


def make_plan(loop: scf.ForOp, model: LoopModel, template, edges: list[Edge]) -> Plan:
    """A static plan for constant bounds, else a dynamic one."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if step is not None and step <= 0:
        raise TileschedError(f"cannot software-pipeline a loop with step {step}", location_of(loop))
    stages = stage_count(model.ops.values())
    repeat = stages + max((e.distance for e in edges), default=0) + 2
    if None not in (lb, ub, step):
        return static_plan(template, model.ops, edges, trip_count(lb, ub, step), repeat)
    return dynamic_plan(template, model.ops, edges, repeat)


def allocate_slots(model: LoopModel, choice: SlotChoice, env: TileContext) -> dict[SSAValue, MultiBuffer]:
    """Replace each multi-buffered ``memref.alloc`` by a ``memref<N x ...>`` one (after
    checking the target's capacity per space)."""
    grown = {model.roots[k]: n for k, n in choice.slots.items() if n > 1}
    _check_capacity(model.loop, grown, env)
    out = {}
    for root, slots in grown.items():
        old: memref.AllocOp = root.owner
        kind = root.type
        new_type = MemRefType(kind.element_type, [slots, *memref_shape(kind)], kind.layout,
                              kind.memory_space)
        alloc = memref.AllocOp([], [], new_type)
        alloc.memref.name_hint = root.name_hint
        alloc.location = old.location
        old.parent_block().insert_op_after(alloc, old)
        out[root] = MultiBuffer(alloc.memref, slots)
    return out


def _bytes(kind: MemRefType) -> int:
    """Size of a memref in bytes."""
    return math.prod(memref_shape(kind)) * element_bytes(kind)


def _check_capacity(loop: scf.ForOp, grown: dict[SSAValue, int], env: TileContext) -> None:
    """Refuse slots that overflow a space (counted like the verifier: all allocs of the module)."""
    module = loop.get_toplevel_object()
    used: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and isinstance(op.memref.type, MemRefType):
            space = memory_space(op.memref.type)
            used[space] = used.get(space, 0) + _bytes(op.memref.type)
    extra: dict[str, list[str]] = {}
    for root, slots in grown.items():
        space = memory_space(root.type)
        used[space] = used.get(space, 0) + (slots - 1) * _bytes(root.type)
        extra.setdefault(space, []).append(f"%{root.name_hint or 'buffer'}: {slots} slots x "
                                           f"{_bytes(root.type)} bytes")
    for space, items in extra.items():
        spec = env.target.spaces.get(space)
        if spec is not None and spec.capacity is not None and used[space] > spec.capacity:
            raise TileschedError(
                f"multi-buffering needs {used[space]} bytes in space \"{space}\" "
                f"({', '.join(items)}), but target '{env.target.name}' has {spec.capacity} "
                f"bytes; bring the stages of these buffers' producers and consumers closer",
                location_of(loop))


def _complete_earlier_async(model: LoopModel, env: TileContext) -> list[Operation]:
    """Group targets: a commit and ``wait 0`` for async copies issued before the loop into
    buffers it accesses (the pipeline's own waits count only its own groups). A loop that
    is itself a staged op of an outer pipelined loop is ordered by that loop's waits."""
    if env.target.sync != "groups" or STAGE in model.loop.attributes:
        return []
    roots = {access.region.root for op in model.parts.staged for access in effects_of(op).accesses}
    queues = [q for q, written in sorted(async_before(model.loop, env.target).items())
              if written & roots]
    return [op for q in queues for op in (make_commit(q), make_wait_group(q, 0))]


def _inherit_annotations(loop: scf.ForOp, new_ops: list[Operation]) -> None:
    """A pipelined inner loop's replacement keeps its place in the outer loop's schedule."""
    inherited = {k: loop.attributes[k] for k in (STAGE, ORDER) if k in loop.attributes}
    if inherited:
        for op in new_ops:
            if not is_pure(op):
                op.attributes.update(inherited)


def _remark(model: LoopModel, choice: SlotChoice, plan: Plan) -> dict:
    """Machine-readable facts about one pipelined loop (for reports and tests)."""
    slots = {f"%{model.roots[k].name_hint}": n for k, n in choice.slots.items()}
    return {"loc": str(location_of(model.loop)), "stages": plan.stages, "slots": slots,
            "kernel_trips": plan.kernel_trips}
