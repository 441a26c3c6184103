"""Durations of ops inside fused spans: the target's fused-execution model applied to the IR.

A *span* is a maximal run of consecutive ops of one block carrying the same
``tile.fusion_group`` (DESIGN.md §2, Fusion contract); a run of one op is not fused. For an op
of a span on a unit with a :class:`~tilesched.target.model.FusionModel`
(:meth:`Target.fused_cycles`):

- the span's first op pays the unit's ``fixed`` startup, later ops ``member_fixed``;
- a read operand stays in vector registers when an earlier op of the span wrote exactly that
  tile; the written operand does when a later op of the span reads exactly that tile with its
  ``tile.last_use`` flag set (the value is dead after that read, so it never goes to UB);
- the op that brings the span's distinct tiles above ``live_tiles`` pays a spill per extra tile.

``tile.last_use`` is what makes a write stay in registers, so the payoff depends on the marking
being exact. :func:`fused_op_cycles` is called by :func:`tilesched.analysis.units.op_cycles`, so
the simulator, ``reorder-events`` and ``modulo-schedule`` all see the same durations.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType
from xdsl.ir import Operation

from tilesched.analysis.fusion_semantics import op_semantics
from tilesched.analysis.regions import Region, root_region
from tilesched.ir.tile import FUSION_GROUP, FUSION_ORDER, LAST_USE, TileOp
from tilesched.ir.types import element_bytes, memref_shape
from tilesched.target.model import OperandShape, Route, Target


def group_of(op: Operation) -> int | None:
    """The ``tile.fusion_group`` of ``op`` (None when absent or not an integer)."""
    attr = op.attributes.get(FUSION_GROUP)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def last_use_flags(op: Operation) -> list[bool] | None:
    """The ``tile.last_use`` flags of ``op`` (one per memref operand), or None."""
    attr = op.attributes.get(LAST_USE)
    if not isinstance(attr, DenseArrayBase):
        return None
    return [bool(v) for v in attr.get_values()]


def span_of(op: Operation) -> list[Operation]:
    """The maximal run of consecutive ops around ``op`` with its fusion group ([op] if none)."""
    group = group_of(op)
    if group is None or op.parent_block() is None:
        return [op]
    before, current = [], op.prev_op
    while current is not None and group_of(current) == group:
        before.append(current)
        current = current.prev_op
    after, current = [], op.next_op
    while current is not None and group_of(current) == group:
        after.append(current)
        current = current.next_op
    return [*reversed(before), op, *after]


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
    shapes = [OperandShape(memref_shape(v.type), element_bytes(v.type)) for v in memrefs]
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
    """Spill cycles ``op`` pays: one per new distinct tile of the span beyond ``live_tiles``."""
    model = target.units[rule.unit].fusion
    seen: set[Region] = set()
    for member in span[:position]:
        seen.update(tile_key(v) for v in member.operands if isinstance(v.type, MemRefType))
    before = len(seen)
    seen.update(tile_key(v) for v in op.operands if isinstance(v.type, MemRefType))
    extra = max(0, len(seen) - model.live_tiles) - max(0, before - model.live_tiles)
    if extra <= 0:
        return 0
    elements = op_semantics(op).elements
    return extra * model.spill_cycles(elements, target.bandwidth(rule))


def span_units(ops: list[Operation], keep=None) -> list[list[int]]:
    """Indices of ``ops`` grouped into scheduling units: each maximal run of two or more
    consecutive ops of one fusion group is one unit (later passes insert nothing inside it and
    move it whole), every other op is a unit of its own. A run for which ``keep(run)`` is false
    loses its annotations instead (a pass that must break a span removes them)."""
    units: list[list[int]] = []
    k = 0
    while k < len(ops):
        group = group_of(ops[k])
        end = k + 1
        while group is not None and end < len(ops) and group_of(ops[end]) == group:
            end += 1
        run = list(range(k, end))
        if len(run) >= 2 and (keep is None or keep([ops[i] for i in run])):
            units.append(run)
        else:
            if len(run) >= 2:
                for i in run:
                    for name in (FUSION_GROUP, FUSION_ORDER, LAST_USE):
                        ops[i].attributes.pop(name, None)
            units.extend([i] for i in run)
        k = end
    return units


def unit_pairs(units: list[list[int]], pairs) -> list[tuple]:
    """``(src, dst, ...)`` tuples over ops mapped to units; plain pairs inside one unit are
    dropped (loop-carried triples are kept: a unit may depend on its previous iteration)."""
    unit_of = {i: u for u, members in enumerate(units) for i in members}
    mapped = {(unit_of[p[0]], unit_of[p[1]], *p[2:]) for p in pairs}
    return sorted(p for p in mapped if len(p) > 2 or p[0] != p[1])
