"""Which unit of a target runs each op (the routing of DESIGN.md §3, with ``pipe`` overrides)."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import element_bytes, memory_space, memref_shape
from tilesched.target.model import OperandShape, Route, Target


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


def op_cycles(op: Operation, target: Target, rule: Route | None = None) -> int:
    """Duration of a tile op: its ``latency`` property, else the target's latency model on
    ``rule`` (default: the op's own route); 0 for ops that run on no unit."""
    if isinstance(op, TileOp) and op.latency is not None:
        return op.latency.value.data
    rule = rule or op_route(op, target)
    if rule is None or rule.unit not in target.units:
        return 0
    shapes = [OperandShape(memref_shape(v.type), element_bytes(v.type))
              for v in op.operands if isinstance(v.type, MemRefType)]
    return target.cycles(op.name, rule, shapes)


def op_unit(op: Operation, target: Target) -> str | None:
    """Name of the unit that runs ``op`` (None for scalar/index ops and pure views)."""
    rule = op_route(op, target)
    return rule.unit if rule else None
