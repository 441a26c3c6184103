"""Which unit of a target runs each op (the routing of DESIGN.md §3, with ``pipe`` overrides, defined
once in ir/routing.py), and what the op costs there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from tilesched.analysis.fusion_cost import fused_op_cycles
from tilesched.ir.routing import op_core, op_route  # noqa: F401 - the analyses' unit of an op
from tilesched.ir.tile import FUSION_GROUP, TileOp
from tilesched.ir.types import element_bytes, element_type_name, memref_shape
from tilesched.target.cores import CORE_ATTRIBUTE
from tilesched.target.model import OperandShape, Route, Target


def op_cycles(op: Operation, target: Target, rule: Route | None = None) -> int:
    """Duration of a tile op: its ``latency`` property, else the target's latency model on
    ``rule`` (default: the op's own route), or its fused-execution model inside a fused span
    (:mod:`tilesched.analysis.fusion_cost`); 0 for ops that run on no unit."""
    if isinstance(op, TileOp) and op.latency is not None:
        return op.latency.value.data
    rule = rule or op_route(op, target)
    if rule is None or rule.unit not in target.units:
        return 0
    if FUSION_GROUP in op.attributes:
        fused = fused_op_cycles(op, target, rule)
        if fused is not None:
            return fused
    shapes = [OperandShape(memref_shape(v.type), element_bytes(v.type), element_type_name(v.type))
              for v in op.operands if isinstance(v.type, MemRefType)]
    return target.cycles(op.name, rule, shapes)


def op_unit(op: Operation, target: Target) -> str | None:
    """Name of the unit that runs ``op`` (None for scalar/index ops and pure views)."""
    rule = op_route(op, target)
    return rule.unit if rule else None


def unit_kind(op: Operation, target: Target) -> tuple[str | None, str | None]:
    """(unit name, unit kind) of a tile op, or (None, None) for ops on no unit of ``target``."""
    rule = op_route(op, target)
    if rule is None or rule.unit not in target.units:
        return None, None
    return rule.unit, target.units[rule.unit].kind


def contains_unit_work(op: Operation, target: Target) -> bool:
    """Does ``op`` (or anything nested in it) run on a non-inline unit? A ``func.call`` may:
    its callee's body is elsewhere and may use any unit."""
    return any(isinstance(inner, func.CallOp) or unit_kind(inner, target)[1] not in
               (None, "inline") for inner in op.walk())


def region_unit(op: Operation, target: Target) -> str | None:
    """The one unit all tile work nested in region op ``op`` runs on, if there is exactly one
    and no sync op inside; else None.

    Such a loop or conditional behaves as one op on that unit: its ops run in order on one
    queue, so flags placed around it order it exactly, and a scheduler may treat it as a node.
    """
    units = set()
    for inner in op.walk():
        if inner is op:
            continue
        if inner.name.startswith("sync.") or isinstance(inner, func.CallOp):
            return None  # a call's callee may use any unit
        units.add(unit_kind(inner, target)[0])
    units.discard(None)
    return units.pop() if len(units) == 1 else None


def region_cycles(op: Operation, target: Target) -> int:
    """Duration of a conditional on one unit: its longer branch, the sum of its tile ops."""
    return max((sum(op_cycles(inner, target) for inner in block.ops if op_route(inner, target))
                for region in op.regions for block in region.blocks), default=0)


Answer = TypeVar("Answer")


class PerSignature(Generic[Answer]):
    """``compute(op)`` remembered per op name, operand types and ``tile.core`` annotation, for ops
    whose answer depends on nothing else (no regions or properties): large blocks repeat a few signatures
    thousands of times. Types are compared by identity (the parser shares one object per
    spelling) and kept alive with the answer, so their ids stay theirs."""

    def __init__(self, compute: Callable[[Operation], Answer]):
        self._compute = compute
        self._known: dict[tuple, tuple] = {}

    def __call__(self, op: Operation) -> Answer:
        types = tuple(v.type for v in op.operands)
        # a tile.core annotation (split-core targets) changes the unit: part of the signature
        key = (op.name, tuple(map(id, types)), op.attributes.get(CORE_ATTRIBUTE))
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = (self._compute(op), types)
        return known[0]
