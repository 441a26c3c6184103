"""Reading and checking the software-pipelining annotations of an ``scf.for``.

A loop is pipelined when ops of its body carry ``tile.stage`` / ``tile.order``
(DESIGN.md §2). *Staged* ops are those with a stage; *pure* ops (``arith``,
``affine.apply``, ``tile.view``, ``tile.slot``) follow the ops that use them and
are re-materialized next to each use; ``memref.alloc`` in the body is hoisted.
Everything else must carry a stage, or the pass cannot move it. Every problem is
a located :class:`~tilesched.diagnostics.TileschedError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Operation

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.ir.tile import ASYNC, ASYNC_STAGES, ORDER, STAGE, SlotOp, ViewOp

ANNOTATIONS = (STAGE, ORDER, ASYNC)


def is_pure(op: Operation) -> bool:
    """Index arithmetic and views: no effects, re-materialized where used."""
    if op.regions:
        return False
    return op.name.startswith("arith.") or isinstance(op, affine.ApplyOp | ViewOp | SlotOp)


def is_annotated(loop: scf.ForOp) -> bool:
    """Does any op directly in the loop body carry a stage or order?"""
    return any(STAGE in op.attributes or ORDER in op.attributes for op in loop.body.block.ops)


def annotated_loops(module: ModuleOp) -> list[scf.ForOp]:
    """Loops to pipeline, inner loops before the loops containing them."""
    return _post_order(module)


def _post_order(root: Operation) -> list[scf.ForOp]:
    found: list[scf.ForOp] = []
    for region in root.regions:
        for block in region.blocks:
            for op in block.ops:
                found.extend(_post_order(op))
                if isinstance(op, scf.ForOp) and is_annotated(op):
                    found.append(op)
    return found


def _int_attr(op: Operation, key: str) -> int | None:
    attr = op.attributes.get(key)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data < 0:
        raise TileschedError(f"'{op.name}' {key} must be a non-negative integer, got {attr}",
                             location_of(op))
    return attr.value.data


def stage_of(op: Operation) -> int | None:
    """``tile.stage`` of an op (None when absent)."""
    return _int_attr(op, STAGE)


def order_of(op: Operation) -> int | None:
    """``tile.order`` of an op (None when absent)."""
    return _int_attr(op, ORDER)


def async_stages(loop: scf.ForOp) -> set[int]:
    """Stages the loop's ``tile.async_stages`` declares asynchronous."""
    attr = loop.attributes.get(ASYNC_STAGES)
    if attr is None:
        return set()
    if isinstance(attr, DenseArrayBase):
        return {int(v) for v in attr.get_values()}
    if isinstance(attr, ArrayAttr) and all(isinstance(a, IntegerAttr) for a in attr.data):
        return {a.value.data for a in attr.data}
    raise TileschedError(f"{ASYNC_STAGES} must be a list of stage numbers, got {attr}",
                         location_of(loop))


def declared_async(op: Operation, stages: set[int]) -> bool:
    """Is the op marked asynchronous (``tile.async`` or its stage in ``tile.async_stages``)?"""
    return isinstance(op.attributes.get(ASYNC), UnitAttr) or stage_of(op) in stages


@dataclass
class BodyParts:
    """A loop body split into staged ops, pure ops and allocations to hoist."""

    staged: list[Operation]
    pure: list[Operation]
    allocs: list[memref.AllocOp]


def split_body(loop: scf.ForOp, check_orders: bool = True) -> BodyParts:
    """Classify the body's ops; raise located errors for what cannot be pipelined."""
    block = loop.body.block
    terminator = block.last_op
    if loop.iter_args or (isinstance(terminator, scf.YieldOp) and terminator.operands):
        raise TileschedError("cannot software-pipeline a loop that carries values (iter_args)",
                             location_of(loop))
    parts = BodyParts([], [], [])
    seen_orders: dict[int, Operation] = {}
    for op in block.ops:
        if op is terminator:
            continue
        stage, order = stage_of(op), order_of(op)
        if (stage is None and order is None) or is_pure(op):
            _classify_unstaged(op, parts)
            continue
        if order is None:
            raise TileschedError(f"'{op.name}' has {STAGE} = {stage} but no {ORDER}",
                                 location_of(op))
        if stage is None:
            raise TileschedError(f"'{op.name}' has {ORDER} = {order} but no {STAGE}",
                                 location_of(op))
        if check_orders and order in seen_orders:
            first = seen_orders[order]
            raise TileschedError(
                f"duplicate {ORDER} = {order}: '{op.name}' and '{first.name}' (at "
                f"{location_of(first)}) cannot both run at position {order} of the kernel",
                location_of(op))
        seen_orders[order] = op
        parts.staged.append(op)
    return parts


def _classify_unstaged(op: Operation, parts: BodyParts) -> None:
    if is_pure(op):
        parts.pure.append(op)
    elif isinstance(op, memref.AllocOp):
        parts.allocs.append(op)
    else:
        raise TileschedError(
            f"cannot move '{op.name}': ops in a software-pipelined loop need a {STAGE} and a "
            f"{ORDER} (only index arithmetic, views and slots follow their users)",
            location_of(op))
