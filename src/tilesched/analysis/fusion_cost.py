"""Durations of ops inside fused spans: the target's fused-execution model applied to the IR.

A *span* is a maximal run of consecutive ops of one block carrying the same
``tile.fusion_group`` (DESIGN.md §2, Fusion contract); a run of one op is not fused. For an op
of a span on a unit with a :class:`~tilesched.target.model.FusionModel`
(:meth:`Target.fused_cycles`):

- the span's first op pays its startup (the unit's ``fixed``, or its vendor formula's bias),
  later ops ``member_fixed``;
- a read operand stays in vector registers when an earlier op of the span wrote exactly that
  tile; the written operand does when a later op of the span reads exactly that tile with its
  ``tile.last_use`` flag set (the value is dead after that read, so it never goes to UB);
- the op that raises the span's peak of tiles live at once above ``live_tiles`` pays a spill per
  extra tile (the target's spill rule, :meth:`~tilesched.target.model.FusionModel.span_spills`).

``tile.last_use`` is what makes a write stay in registers, so the payoff depends on the marking
being exact. :func:`fused_op_cycles` is called by :func:`tilesched.analysis.units.op_cycles`, so
the simulator, ``reorder-events`` and ``modulo-schedule`` all see the same durations.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from tilesched.analysis.fusion_annotations import last_use_flags, span_of
from tilesched.analysis.fusion_semantics import op_semantics
from tilesched.analysis.regions import Region, root_region
from tilesched.ir.tile import TileOp
from tilesched.ir.types import element_bytes, element_type_name, memref_shape
from tilesched.target.model import OperandShape, Route, Target


def tile_key(value) -> Region:
    """What identifies a tile: its root buffer and region."""
    return root_region(value)


def fused_op_cycles(op: Operation, target: Target, rule: Route) -> int | None:
    """Duration of ``op`` in its fused span, or None when it is not in one (no group, a span of
    one op, an explicit ``latency``, or a unit without a fusion model)."""
    unit = target.units.get(rule.unit)
    if unit is None or unit.fusion is None or not isinstance(op, TileOp) or op.latency is not None:
        return None
    span = span_of(op)
    if len(span) < 2:
        return None
    position = span.index(op)
    memrefs = op.memref_operands
    keys = [tile_key(v) for v in memrefs]
    written_before = {tile_key(m.written()) for m in span[:position] if isinstance(m, TileOp)}
    in_registers = [key in written_before for key in keys[:-1]]
    in_registers.append(_dies_in_span(keys[-1], span[position + 1:]))
    shapes = [OperandShape(memref_shape(v.type), element_bytes(v.type), element_type_name(v.type))
              for v in memrefs]
    cycles = target.fused_cycles(op.name, rule, shapes, in_registers, head=position == 0)
    return cycles + _spill(span, position, op, target, rule)


def _dies_in_span(key: Region, later: list[Operation]) -> bool:
    """Does a later op of the span read tile ``key`` with its last-use flag set?"""
    for member in later:
        flags = last_use_flags(member)
        if flags is None or not isinstance(member, TileOp):
            continue
        memrefs = [v for v in member.operands if isinstance(v.type, MemRefType)]
        for value, flag in zip(memrefs[:-1], flags, strict=False):
            if flag and tile_key(value) == key:
                return True
    return False


def _spill(span: list[Operation], position: int, op: Operation, target: Target,
           rule: Route) -> int:
    """Spill cycles ``op`` pays: the target's spill rule (:meth:`FusionModel.span_spills`) over
    the tiles each member of the span touches."""
    model = target.units[rule.unit].fusion
    touched = [[tile_key(v) for v in member.operands if isinstance(v.type, MemRefType)]
               for member in span]
    extra = model.span_spills(touched)[position]
    if extra <= 0:
        return 0
    elements = op_semantics(op).elements
    return extra * model.spill_cycles(elements, target.bandwidth(rule))
