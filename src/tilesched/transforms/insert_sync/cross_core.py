"""insert-sync on a split-core target (``ascend-a2-mix``): flags between cores become cross-core
flags.

The flag plan (:mod:`.flags`) runs unchanged on the core-qualified units (``AIC.FIX``,
``AIV0.MTE2``: ``analysis.units.op_route`` routes every op to its core), so a dependence through
GM between ops of two cores gets a set/wait pair like any cross-unit dependence, with the plan's
id reuse along happens-before and its back-edge flags for loops. This module then rewrites every
pair whose src and dst units are on different cores:

- ``sync.set_flag "AIC.FIX" -> "AIV0.MTE2", e``  becomes  ``sync.cross_set "AIC" -> "AIV0", id
  after "FIX"``: the flag is still set when the src unit's earlier ops are done;
- ``sync.wait_flag "AIC.FIX" -> "AIV0.MTE2", e``  becomes  ``sync.cross_wait "AIC" -> "AIV0",
  id``: the dst core's issuer waits (``wait_flag_dev`` stops the core's issue), which orders at
  least what the unit's wait ordered, so every dependence the plan covered stays covered.

Ids: each (src unit, dst unit) pair's ids ``0..n-1`` (a rotating id: every value it takes) get
their own range of the function's cross-core ids, in order of first use (one range for all core
pairs: a cube core's FFTS set reaches both vector cores); more than the target's
``cross_event_limit`` is an error (located at the function). A rotating id keeps its ``index``
operand, plus the range's offset.
"""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.units import op_route
from tilesched.diagnostics import TileschedError
from tilesched.ir import sync as S
from tilesched.ir.affine import index_values
from tilesched.ir.blocks import insert_before
from tilesched.ir.text import location_of
from tilesched.target.cores import split_unit
from tilesched.target.model import Target


def cross_core_flags(block: Block, target: Target) -> int:
    """Rewrite the flags between units of two cores in ``block`` (a function body) as
    cross-core flags; returns how many flag ops were rewritten. A plan that needs a
    ``barrier_all`` (an inline consumer such as a ``tile.call``, a region it cannot plan flags
    around) in a function with ops on several cores is refused (located): a barrier_all orders
    one core's units only, and split-core targets have no barrier across cores yet."""
    _refuse_cross_core_barriers(block, target)
    pairs = [op for op in block.walk() if isinstance(op, S.SetFlagOp | S.WaitFlagOp)
             and target.core_of(op.src.data) != target.core_of(op.dst.data)]
    if not pairs:
        return 0
    offsets = _id_ranges(pairs, target, block)
    for op in pairs:
        (src_core, src_unit), (dst_core, _) = split_unit(op.src.data), split_unit(op.dst.data)
        offset = offsets[(op.src.data, op.dst.data)]
        ident, before = _shifted(S.event_id(op), offset)
        if isinstance(op, S.SetFlagOp):
            new = S.make_cross_set(src_core, dst_core, src_unit, ident)
        else:
            new = S.make_cross_wait(src_core, dst_core, ident)
        insert_before(op, [*before, new])
        op.detach()
        op.erase()
    return len(pairs)


def _refuse_cross_core_barriers(block: Block, target: Target) -> None:
    barriers = [op for op in block.walk() if isinstance(op, S.BarrierAllOp)]
    if not barriers:
        return
    cores = {target.core_of(rule.unit) for op in block.walk()
             if (rule := op_route(op, target)) is not None}
    cores.discard(None)
    if len(cores) > 1:
        after = barriers[0].next_op or barriers[0]
        raise TileschedError(
            "insert-sync needs a barrier_all here (an op on the issuer, or a region it cannot "
            f"plan flags around), but this function runs ops on cores {', '.join(sorted(cores))} "
            "and a barrier_all orders one core only; split-core targets have no barrier across "
            "cores yet (order this op with the producers on its own core, or annotate it "
            "tile.core)", location_of(after))


def _id_ranges(pairs: list[Operation], target: Target, block: Block) -> dict[tuple[str, str], int]:
    """The first cross-core id of each (src unit, dst unit) pair's range: its ids ``0..n-1``
    follow the ranges of the pairs first used before it. All pairs of a function share one
    range of ids, whatever their cores: in FFTS mode 2 a cube core's set reaches both vector
    cores of its group (docs/targets.md, "Cores"), so an id used from AIC to AIV0 must not be
    used from AIC to AIV1 as well."""
    sizes: dict[tuple[str, str], int] = {}
    for op in pairs:
        ident = S.event_id(op)
        values = [ident] if isinstance(ident, int) else sorted(index_values(ident) or [0])
        key = (op.src.data, op.dst.data)
        sizes[key] = max(sizes.get(key, 0), max(values) + 1)
    offsets, used = {}, 0
    for key, size in sizes.items():
        offsets[key] = used
        used += size
    limit = target.cross_event_limit
    if limit is not None and used > limit:
        raise TileschedError(
            f"insert-sync needs {used} cross-core flag ids in this function, but target "
            f"'{target.name}' has {limit}", _function_location(block))
    return offsets


def _shifted(ident: int | SSAValue, offset: int) -> tuple[int | SSAValue, list[Operation]]:
    """``ident + offset``: an int, or an ``index`` value and the ``arith`` ops computing it."""
    if isinstance(ident, int):
        return ident + offset, []
    if offset == 0:
        return ident, []
    constant = arith.ConstantOp(IntegerAttr(offset, IndexType()))
    total = arith.AddiOp(ident, constant.results[0])
    return total.results[0], [constant, total]


def _function_location(block: Block):
    parent = block.parent_op()
    return location_of(parent) if isinstance(parent, func.FuncOp) else None
