"""Read/write effects of ops, with summaries for ``scf.for`` and ``scf.if``.

Tile ops read all memref operands but the last and write the last (DESIGN.md §2).
An ``scf.if`` has the union of both branches' effects. An ``scf.for`` has the
union of its body's effects *over all iterations*: each interval whose start
moves with the induction variable is widened to the hull it sweeps (or to the
whole dimension when that cannot be computed). ``tile.call``, ``func.call`` (it may do
anything to the buffers it is passed) and foreign ops with memref operands have unknown
effects: they conflict with everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.regions import Interval, Region, root_region
from tilesched.ir.affine import Affine, constant_value
from tilesched.ir.tile import CallOp, SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import memref_shape


@dataclass(frozen=True)
class Access:
    """One read or write of ``region`` by ``op`` (the innermost op doing it)."""

    region: Region
    write: bool
    op: Operation


@dataclass
class Effects:
    """What an op (or a whole loop / conditional) may read and write."""

    accesses: list[Access] = field(default_factory=list)
    unknown: bool = False

    @property
    def reads(self) -> list[Access]:
        return [a for a in self.accesses if not a.write]

    @property
    def writes(self) -> list[Access]:
        return [a for a in self.accesses if a.write]

    def extend(self, other: Effects) -> None:
        self.accesses.extend(other.accesses)
        self.unknown = self.unknown or other.unknown


_PURE_TILE = (ViewOp, SlotOp, StageBorderOp)


def effects_of(op: Operation, regions: dict[SSAValue, Region] | None = None) -> Effects:
    """Effects of one op; loops and conditionals are summarized over their bodies.

    ``regions`` memoizes :func:`root_region` per value, for many ops of one block that is not
    modified meanwhile (a block reuses a few buffers many times).
    """
    if isinstance(op, CallOp | func.CallOp):  # func.call: whatever the callee does to them
        return Effects([Access(_region(v, regions), True, op) for v in op.operands
                        if isinstance(v.type, MemRefType)], unknown=True)
    accesses = tile_accesses(op)
    if accesses is not None:
        reads, written = accesses
        return Effects([Access(_region(v, regions), False, op) for v in reads]
                       + [Access(_region(written, regions), True, op)])
    if isinstance(op, _PURE_TILE) or op.name.startswith("sync.") or isinstance(op, memref.AllocOp):
        return Effects()
    if isinstance(op, memref.DeallocOp):
        return Effects([Access(_region(op.memref, regions), True, op)])
    if isinstance(op, scf.ForOp):
        return loop_summary(op, regions)
    if isinstance(op, scf.IfOp):
        return _nested_effects(op, regions)
    if any(isinstance(v.type, MemRefType) for v in op.operands) or op.regions:
        nested = _nested_effects(op, regions)
        nested.unknown = nested.unknown or any(isinstance(v.type, MemRefType) for v in op.operands)
        return nested
    return Effects()


def tile_accesses(op: Operation) -> tuple[list[SSAValue], SSAValue] | None:
    """``(operands read, operand written)`` of a tile op other than ``tile.call``: it reads
    every memref operand but the last and writes the last; None for any other op (see
    :func:`effects_of`)."""
    if not isinstance(op, TileOp) or isinstance(op, CallOp):
        return None
    return op.read_operands(), op.written()


def _region(value: SSAValue, regions: dict[SSAValue, Region] | None) -> Region:
    if regions is None:
        return root_region(value)
    region = regions.get(value)
    if region is None:
        region = regions[value] = root_region(value)
    return region


def _nested_effects(op: Operation, regions: dict[SSAValue, Region] | None = None) -> Effects:
    total = Effects()
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                total.extend(effects_of(inner, regions))
    return total


def loop_summary(loop: scf.ForOp, regions: dict[SSAValue, Region] | None = None) -> Effects:
    """Union of the body's effects over every iteration of ``loop``."""
    body = _nested_effects(loop, regions)
    return Effects([_widen_access(a, loop) for a in body.accesses], body.unknown)


def _widen_access(access: Access, loop: scf.ForOp) -> Access:
    dims = tuple(_widen_interval(d, full, loop) for d, full in
                 zip(access.region.dims, memref_shape(access.region.root.type), strict=True))
    return Access(Region(access.region.root, dims), access.write, access.op)


def _widen_interval(interval: Interval, full_size: int, loop: scf.ForOp) -> Interval:
    """The hull of ``interval`` as the loop's induction variable sweeps its range."""
    start = interval.start
    if isinstance(start, Affine) and not any(defined_inside(v, loop) for v, _ in start.terms):
        return interval
    whole = Interval(Affine(0), full_size)
    if not isinstance(start, Affine):
        return whole
    iv = loop.body.block.args[0]
    if any(defined_inside(v, loop) and v is not iv for v, _ in start.terms):
        return whole
    bounds = [constant_value(v) for v in (loop.lb, loop.ub, loop.step)]
    if None in bounds or bounds[2] <= 0 or bounds[1] <= bounds[0]:
        return whole
    lb, ub, step = bounds
    last = lb + (ub - lb - 1) // step * step
    first_start = start.substitute(iv, Affine(lb))
    last_start = start.substitute(iv, Affine(last))
    low = first_start if start.coeff(iv) >= 0 else last_start
    span = abs((last_start - first_start).const) if (last_start - first_start).is_constant else None
    if span is None:
        return whole
    return Interval(low, span + interval.size)


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """True when ``value`` is defined in one of ``op``'s regions (an IV, or a body result)."""
    owner = value.owner
    owner_op = owner.parent_op() if not isinstance(owner, Operation) else owner
    while owner_op is not None:
        if owner_op is op:
            return owner is not op
        owner_op = owner_op.parent_op()
    return False
