"""Which unit of a target runs each op (the routing of DESIGN.md §3, with ``pipe`` overrides)."""

from __future__ import annotations

from xdsl.ir import Operation

from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import memory_space
from tilesched.target.model import Route, Target


def op_route(op: Operation, target: Target) -> Route | None:
    """The routing rule for a tile op, or None for ops that run on no unit."""
    if not isinstance(op, TileOp) or isinstance(op, ViewOp | SlotOp | StageBorderOp):
        return None
    if op.pipe is not None:
        return Route(ops=(op.name,), unit=op.pipe.data)
    reads = tuple(memory_space(v.type) for v in op.memref_operands[:-1])
    written = op.written()
    dst = memory_space(written.type) if written is not None and op.memref_operands else None
    return target.route(op.name, reads, dst)


def op_unit(op: Operation, target: Target) -> str | None:
    """Name of the unit that runs ``op`` (None for scalar/index ops and pure views)."""
    rule = op_route(op, target)
    return rule.unit if rule else None
