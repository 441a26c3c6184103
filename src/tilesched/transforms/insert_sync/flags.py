"""insert-sync for flag targets (Ascend): set_flag / wait_flag, pipe_barrier, barrier_all.

Straight-line code and loop bodies are planned by :mod:`tilesched.schedule.flags`
on the body's unit ops and dependences. Nested loops and conditionals are
boundaries: they are synchronized inside, and a ``barrier_all`` before and after
them orders them with the surrounding code (so is a ``func.call``: its callee is a function
insert-sync synchronizes on its own) (skipped when nothing queued comes
before / after in the block). This is conservative across region boundaries and
exact inside straight-line code and innermost loops, where the time goes.
"""

from __future__ import annotations

from collections import defaultdict

from xdsl.dialects import func, scf
from xdsl.ir import Block, Operation

from tilesched.analysis.dependence import loop_carried_dependences
from tilesched.analysis.fusion_cost import span_units, unit_pairs
from tilesched.analysis.reduced_deps import reduced_edges
from tilesched.analysis.units import PerSignature, contains_unit_work, region_unit, unit_kind
from tilesched.ir import sync as S
from tilesched.ir.blocks import body_ops, insert_after, insert_before, split_at
from tilesched.ir.sync import make_barrier_all, make_pipe_barrier, make_set, make_wait
from tilesched.schedule.flags import (
    BARRIER_ALL,
    PIPE_BARRIER,
    SET,
    WAIT,
    Item,
    SyncOp,
    plan_flags,
    plan_loop_flags,
)
from tilesched.target.model import Target

_REPLANNED = (S.SetFlagOp, S.WaitFlagOp, S.PipeBarrierOp)


class FlagSync:
    """Synchronizes one function for a flag target; records the peak ids per pair."""

    def __init__(self, target: Target, naive: bool = False):
        self.target = target
        self.naive = naive  # baseline: one flag per dependence, loops serialized
        self.limit = target.event_limit or 8
        self.pipelined = frozenset(u.name for u in target.units.values() if u.pipelined)
        self.peak_events: dict[str, int] = defaultdict(int)
        self.serialized_loops: list[scf.ForOp] = []
        self._plain = PerSignature(self._routed)  # ops without regions or a pipe override

    def run_block(self, block: Block, in_loop: bool = False) -> None:
        """Synchronize ``block``: nested regions first, then its straight-line segments."""
        _strip_replanned(block)
        ops = body_ops(block)
        region_ops = [op for op in ops if self._is_boundary(op)]
        for region_op in region_ops:
            self.run_region(region_op, ops, in_loop)
        for segment in split_at(ops, lambda op: op in region_ops):
            self.run_segment(segment)

    def run_region(self, op: Operation, block_ops: list[Operation], in_loop: bool) -> None:
        presets, drains = [], []
        if isinstance(op, scf.ForOp):
            presets, drains = self.run_loop(op)
        elif isinstance(op, scf.WhileOp):  # rounds in sequence: each region ends drained
            for region in op.regions:
                block = region.blocks[0]
                self.run_block(block, in_loop=True)
                if any(contains_unit_work(inner, self.target) for inner in block.ops):
                    insert_before(block.last_op, [make_barrier_all()])
        else:
            for region in op.regions:
                for block in region.blocks:
                    self.run_block(block)
        index = block_ops.index(op)
        before = in_loop or any(self._queued(o) for o in block_ops[:index])
        after = in_loop or any(self._queued(o) for o in block_ops[index + 1:])
        insert_before(op, ([make_barrier_all()] if before else []) + presets)
        insert_after(op, drains + ([make_barrier_all()] if after else []))

    def run_loop(self, loop: scf.ForOp) -> tuple[list[Operation], list[Operation]]:
        """Synchronize a loop body; returns the ops to put before and after the loop."""
        block = loop.body.block
        ops = body_ops(block)
        if any(self._is_boundary(op) for op in ops):
            self.run_block(block, in_loop=True)
            if contains_unit_work(loop, self.target):
                insert_before(block.last_op, [make_barrier_all()])
            return [], []
        _strip_replanned(block)
        ops = body_ops(block)
        units = self._units(ops)  # a fused span is one unit: nothing is inserted inside it
        anchors = [ops[u[0]] for u in units]
        items = [self._item(op) for op in anchors]
        all_ops = list(block.ops)
        index_of = {id(op): i for i, op in enumerate(ops)}
        deps = _mapped(units, reduced_edges(ops))
        carried = _mapped(units, [
            (index_of[id(all_ops[d.src])], index_of[id(all_ops[d.dst])], d.distance)
            for d in loop_carried_dependences(loop)
            if id(all_ops[d.src]) in index_of and id(all_ops[d.dst]) in index_of])
        ops = anchors
        if self.naive:
            plan = plan_flags(items, deps, self.limit, self.pipelined, naive=True)
            _apply(ops, block.last_op, plan.ops + [SyncOp(len(items), BARRIER_ALL, order=99)])
            self._record_peaks(plan.peak_events)
            return [], []
        plan = plan_loop_flags(items, deps, carried, self.limit, self.pipelined)
        if plan.serialized:
            self.serialized_loops.append(loop)
        self._record_peaks(plan.peak_events)
        _apply(ops, block.last_op, plan.body)
        return [_make(s) for s in plan.presets], [_make(s) for s in plan.drains]

    def run_segment(self, ops: list[Operation]) -> None:
        if not any(self._queued(op) for op in ops):
            return
        units = self._units(ops)  # a fused span is one unit: nothing is inserted inside it
        anchors = [ops[u[0]] for u in units]
        items = [self._item(op) for op in anchors]
        deps = _mapped(units, reduced_edges(ops))
        plan = plan_flags(items, deps, self.limit, self.pipelined, naive=self.naive)
        self._record_peaks(plan.peak_events)
        anchor_after = ops[-1]
        _apply(anchors, None, plan.ops, anchor_after)

    def _units(self, ops: list[Operation]) -> list[list[int]]:
        """Fused spans as single units; a span on a pipelined unit would need pipe barriers
        inside it, so it loses its annotations instead."""
        return span_units(ops, keep=lambda span: unit_kind(span[0], self.target)[0]
                          not in self.pipelined)

    def _item(self, op: Operation) -> Item:
        if op.regions:
            unit = region_unit(op, self.target)
            return Item(unit, inline=unit is not None and self.target.units[unit].kind == "inline")
        if op.properties:  # a pipe override
            return self._routed(op)
        return self._plain(op)

    def _routed(self, op: Operation) -> Item:
        """:meth:`_item` of an op without regions (its unit depends on its name, its operand
        types and its ``pipe``)."""
        unit, kind = unit_kind(op, self.target)
        return Item(unit, inline=(kind == "inline"))

    def _is_boundary(self, op: Operation) -> bool:
        """A region op with unit work on several units, or a ``func.call`` (its callee is
        synchronized as a function of its own): synchronized inside, barriers around."""
        if isinstance(op, func.CallOp):
            return True
        return bool(op.regions) and contains_unit_work(op, self.target) and region_unit(op, self.target) is None

    def _queued(self, op: Operation) -> bool:
        return unit_kind(op, self.target)[1] not in (None, "inline") or isinstance(
            op, func.CallOp) or (bool(op.regions) and contains_unit_work(op, self.target))

    def _record_peaks(self, peaks: dict[str, int]) -> None:
        for pair, count in peaks.items():
            self.peak_events[pair] = max(self.peak_events[pair], count)


def _mapped(units: list[list[int]], pairs: list[tuple]) -> list[tuple]:
    """:func:`unit_pairs`, skipped when no op is fused (unit k is op k; the pairs come sorted
    and unique)."""
    if all(len(members) == 1 for members in units):
        return pairs
    return unit_pairs(units, pairs)


def _strip_replanned(block: Block) -> None:
    """Remove existing flags and pipe barriers: they are planned anew."""
    for op in body_ops(block):
        if isinstance(op, _REPLANNED):
            op.detach()
            op.erase()


def _apply(ops: list[Operation], terminator: Operation | None, syncs: list[SyncOp],
           last: Operation | None = None) -> None:
    """Insert planned sync ops before ``ops[position]`` (or at the end)."""
    grouped: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in syncs:
        grouped[sync.position].append(sync)
    for position, group in grouped.items():
        new_ops = [_make(s) for s in sorted(group, key=lambda s: s.order)]
        if position < len(ops):
            insert_before(ops[position], new_ops)
        elif terminator is not None:
            insert_before(terminator, new_ops)
        else:
            insert_after(last, new_ops)


def _make(sync: SyncOp) -> Operation:
    if sync.kind == SET:
        return make_set(sync.src, sync.dst, sync.event)
    if sync.kind == WAIT:
        return make_wait(sync.src, sync.dst, sync.event)
    if sync.kind == PIPE_BARRIER:
        return make_pipe_barrier(sync.src)
    assert sync.kind == BARRIER_ALL
    return make_barrier_all()
