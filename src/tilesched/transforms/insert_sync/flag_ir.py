"""Writing planned flags into the IR for insert-sync (:mod:`.flags`), and reading their ids back.

:func:`apply_syncs` / :func:`apply_anchored` insert the planned :class:`SyncOp` s as
``set_flag`` / ``wait_flag`` / ``pipe_barrier`` / ``barrier_all`` ops; rotating ids are computed
by :class:`RotatingIds` from a loop's induction variable (:func:`loop_end` gives its value after
the loop). :func:`event_ids`, :func:`renumber_ids` and :func:`separate_ids` read and rename the ids
of flags already written, so that nested regions use ids of their own.
"""

from __future__ import annotations

from collections import defaultdict

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Operation, SSAValue

from tilesched.ir import sync as S
from tilesched.ir.affine import constant_value
from tilesched.ir.blocks import insert_after, insert_before
from tilesched.ir.sync import make_barrier_all, make_pipe_barrier, make_set, make_wait
from tilesched.schedule.flags import BARRIER_ALL, PIPE_BARRIER, SET, WAIT, SyncOp
from tilesched.schedule.flags.pool import OutOfIds


def separate_ids(boundaries: list[Operation], owned: dict[int, list[Operation]], limit: int):
    """Give each region's flags ids of their own, from the top of each pair's range down
    (renumbered in order); returns the caps left for the block's own flags and, per region,
    the pairs whose ids it uses (its next instance re-sets them)."""
    caps: dict[tuple[str, str], int] = {}
    used_inside: dict[int, set[tuple[str, str]]] = {}
    for region_op in boundaries:
        flags = [op for op in region_op.walk() if isinstance(op, S.SetFlagOp | S.WaitFlagOp)]
        threaded = [op for op in owned[id(region_op)] if isinstance(op, S.SetFlagOp | S.WaitFlagOp)]
        by_pair: dict[tuple[str, str], set[int]] = defaultdict(set)
        for op in flags + threaded:
            by_pair[(op.src.data, op.dst.data)].update(event_ids(op))
        for pair, ids in by_pair.items():
            top = caps.get(pair, limit)
            renumber = {e: top - len(ids) + n for n, e in enumerate(sorted(ids))}
            caps[pair] = top - len(ids)
            if caps[pair] < 0:
                raise OutOfIds(pair)
            renamed: set[int] = set()
            for op in flags + threaded:
                if (op.src.data, op.dst.data) == pair:
                    renumber_ids(op, renumber, renamed)
        used_inside[id(region_op)] = set() if isinstance(region_op, scf.ForOp) else set(by_pair)
    return caps, used_inside


def apply_anchored(anchors: list[Operation], end: Operation, syncs: list[SyncOp]) -> None:
    """Insert planned sync ops before ``anchors[position]`` (``end`` past the last)."""
    grouped: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in syncs:
        grouped[sync.position].append(sync)
    for position in sorted(grouped):
        anchor = anchors[position] if position < len(anchors) else end
        insert_before(anchor, [make_sync(s) for s in sorted(grouped[position], key=lambda s: s.order)])


def apply_syncs(ops: list[Operation], terminator: Operation | None, syncs: list[SyncOp],
           last: Operation | None = None, ids: RotatingIds | None = None) -> None:
    """Insert planned sync ops before ``ops[position]`` (or at the end); rotating ids are
    computed by ``ids`` (from the loop's induction variable)."""
    grouped: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in syncs:
        grouped[sync.position].append(sync)
    for position, group in grouped.items():
        new_ops = [make_sync(s, ids) for s in sorted(group, key=lambda s: s.order)]
        if position < len(ops):
            insert_before(ops[position], new_ops)
        elif terminator is not None:
            insert_before(terminator, new_ops)
        else:
            insert_after(last, new_ops)


def make_sync(sync: SyncOp, ids: RotatingIds | None = None) -> Operation:
    event = ids.value(sync) if sync.modulus else sync.event
    if sync.kind == SET:
        return make_set(sync.src, sync.dst, event)
    if sync.kind == WAIT:
        return make_wait(sync.src, sync.dst, event)
    if sync.kind == PIPE_BARRIER:
        return make_pipe_barrier(sync.src)
    assert sync.kind == BARRIER_ALL
    return make_barrier_all()


class RotatingIds:
    """The ``arith`` ops computing rotating ids ``base + (index + shift * step) mod M`` from
    ``index`` (a loop's induction variable, or its start / end for presets and drains), one
    value per pair and distinct id (ids are renumbered per pair); :attr:`ops` go before the
    first flag that uses them."""

    def __init__(self, index: SSAValue, step: int):
        self.index = index
        self.step = step
        self.ops: list[Operation] = []
        self._values: dict[tuple[str, str, int, int, int], SSAValue] = {}
        self._slots: dict[tuple[int, int], SSAValue] = {}  # (i + offset) mod M, shared

    def value(self, sync: SyncOp) -> SSAValue:
        offset = (sync.shift * self.step) % sync.modulus  # remui of a non-negative value
        key = (sync.src, sync.dst, offset, sync.modulus, sync.event)  # renamed per pair
        if key not in self._values:
            if (offset, sync.modulus) not in self._slots:
                arith_ops, slot = S.slot_event(self.index, sync.modulus, offset, 0)
                self.ops += arith_ops
                self._slots[(offset, sync.modulus)] = slot
            slot = self._slots[(offset, sync.modulus)]
            base = arith.ConstantOp(IntegerAttr(sync.event, IndexType()))
            total = arith.AddiOp(slot, base.result)
            self.ops += [base, total]
            self._values[key] = total.result
        return self._values[key]


def loop_end(loop: scf.ForOp) -> tuple[list[Operation], SSAValue]:
    """Ops computing the induction variable's value after the last iteration (``lb`` + trips
    * ``step``; ``lb`` for a loop that does not run): ``lb + ceil(max(ub - lb, 0) / step) *
    step``."""
    step = constant_value(loop.step)
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    span = arith.SubiOp(loop.ub, loop.lb)
    positive = arith.MaxSIOp(span.result, zero.result)
    ops: list[Operation] = [zero, span, positive]
    value = positive.result
    if step != 1:
        bump = arith.ConstantOp(IntegerAttr(step - 1, IndexType()))
        size = arith.ConstantOp(IntegerAttr(step, IndexType()))
        padded = arith.AddiOp(value, bump.result)
        trips = arith.DivUIOp(padded.result, size.result)
        scaled = arith.MuliOp(trips.result, size.result)
        ops += [bump, size, padded, trips, scaled]
        value = scaled.result
    end = arith.AddiOp(loop.lb, value)
    ops.append(end)
    return ops, end.result


def event_ids(op: Operation) -> list[int]:
    """Every id a flag op may use: its constant id, or ``base .. base + M - 1`` of a rotating
    id written by :class:`RotatingIds`."""
    if op.event is not None:
        return [op.event.value.data]
    base, modulus = rotating_id(op)
    return [base.value.value.data + k for k in range(modulus)]


def renumber_ids(op: Operation, mapping: dict[int, int], renamed: set[int]) -> None:
    """Rename a flag op's id(s) (a monotone renaming keeps a rotating range contiguous); a
    rotating id's base constant, shared by several flag ops, is renamed once (``renamed``)."""
    if op.event is not None:
        op.properties["event"] = IntegerAttr(mapping[op.event.value.data], i64)
        return
    base, _ = rotating_id(op)
    if id(base) not in renamed:
        renamed.add(id(base))
        base.properties["value"] = IntegerAttr(mapping[base.value.value.data], IndexType())


def rotating_id(op: Operation) -> tuple[arith.ConstantOp, int]:
    """The base constant and the modulus of a rotating id written by :class:`RotatingIds`."""
    total = op.operands[0].owner
    assert isinstance(total, arith.AddiOp)
    base, rem = total.rhs.owner, total.lhs.owner
    assert isinstance(base, arith.ConstantOp) and isinstance(rem, arith.RemUIOp)
    return base, rem.rhs.owner.value.value.data
