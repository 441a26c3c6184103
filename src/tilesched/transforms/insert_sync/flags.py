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

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.dependence import (
    block_dependences,
    carried_conflict,
    loop_carried_dependences,
)
from tilesched.analysis.fusion_annotations import span_units, unit_pairs
from tilesched.analysis.reduced_deps import reduced_edges
from tilesched.analysis.units import PerSignature, contains_unit_work, region_unit, unit_kind
from tilesched.ir import sync as S
from tilesched.ir.affine import constant_value
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
from tilesched.schedule.flags.pool import OutOfIds
from tilesched.target.model import Target
from tilesched.transforms.insert_sync.nested import expand, region_footprints

_REPLANNED = (S.SetFlagOp, S.WaitFlagOp, S.PipeBarrierOp, S.CrossSetOp, S.CrossWaitOp)


class FlagSync:
    """Synchronizes one function for a flag target; records the peak ids per pair."""

    def __init__(self, target: Target, naive: bool = False, legacy: bool = False,
                 rolled: bool = True):
        self.target = target
        self.naive = naive  # baseline: one flag per dependence, loops serialized
        self.legacy = legacy  # the previous plan: one back-edge flag per pair, barriers around regions
        self.rolled = rolled  # rotating ids (index operands) for prefetches in rolled loops
        self.limit = target.event_limit or 8
        self.pipelined = frozenset(u.name for u in target.units.values() if u.pipelined)
        self.peak_events: dict[str, int] = defaultdict(int)
        self.serialized_loops: list[scf.ForOp] = []
        self.barrier_regions: list[tuple[Operation, str]] = []  # kept barrier_all, and why
        self._threaded: set[int] = set()  # loops whose flags continue in their next run
        self._plain = PerSignature(self._routed)  # ops without regions or a pipe override

    def run_block(self, block: Block, in_loop: bool = False) -> None:
        """Synchronize ``block`` (a function body or a branch): nested regions first."""
        if self.legacy or self.naive:
            self._legacy_block(block, in_loop)
        else:
            self._plan_block(block, None)

    def run_function(self, block: Block) -> None:
        """Synchronize a function body; then number each pair's ids from 0 in the order
        they were chosen (a renaming: which flags share an id does not change)."""
        self.run_block(block)
        if self.legacy or self.naive:
            return
        flags = [op for op in block.walk() if isinstance(op, S.SetFlagOp | S.WaitFlagOp)]
        used: dict[tuple[str, str], set[int]] = defaultdict(set)
        for op in flags:
            used[(op.src.data, op.dst.data)].update(_event_ids(op))
        renamed: set[int] = set()
        for op in flags:
            ids = sorted(used[(op.src.data, op.dst.data)])
            _renumber(op, {e: n for n, e in enumerate(ids)}, renamed)

    def run_loop(self, loop: scf.ForOp) -> tuple[list[Operation], list[Operation]]:
        """Synchronize a loop body; returns the ops to put before and after the loop."""
        if self.legacy or self.naive:
            return self._legacy_loop(loop)
        return self._plan_block(loop.body.block, loop)

    # ------------------------------------------------------------ flags across regions

    def _plan_block(self, block: Block, loop: scf.ForOp | None
                    ) -> tuple[list[Operation], list[Operation]]:
        """Plan ``block`` with its multi-unit regions as entry / exit items per unit
        (:mod:`.nested`). Inner loops' back-edge flags are threaded through an enclosing
        loop (pre-set before it, drained after it), ids of each region are kept apart from
        the block's own. Returns the presets and drains to put around ``loop``."""
        _strip_replanned(block)
        ops = body_ops(block)
        boundaries = [op for op in ops if self._is_boundary(op)]
        if not boundaries:
            if loop is None:
                self.run_segment(ops)
                return [], []
            return self._plan_simple_loop(loop)
        footprints = {id(op): region_footprints(op, self.target) for op in boundaries}
        if any(fp is None for fp in footprints.values()):
            return self._legacy_fallback(block, loop, boundaries, "it contains work on the "
                                         "issuer or with unknown effects")
        owned: dict[int, list[Operation]] = {}
        hoisted: list[tuple[list[Operation], list[Operation]]] = []
        for region_op in boundaries:
            if isinstance(region_op, scf.ForOp):
                if loop is not None:
                    self._threaded.add(id(region_op))
                presets, drains = self.run_loop(region_op)
                if loop is not None:  # threaded: the flags stay set between the instances
                    hoisted.append((presets, drains))
                else:
                    insert_before(region_op, presets)
                    insert_after(region_op, drains)
                owned[id(region_op)] = presets + drains
            else:
                for region in region_op.regions:
                    for inner in region.blocks:
                        self._plan_block(inner, None)
                owned[id(region_op)] = []
        try:
            caps, used_inside = _separate_ids(boundaries, owned, self.limit)
            return self._plan_expanded(block, loop, ops, boundaries, footprints, caps,
                                       used_inside, hoisted)
        except OutOfIds as error:
            for region_op, (presets, drains) in zip(
                    [r for r in boundaries if isinstance(r, scf.ForOp)], hoisted, strict=False):
                insert_before(region_op, presets)
                insert_after(region_op, drains)
            return self._legacy_fallback(block, loop, boundaries, f"the event ids run out ({error})",
                                         planned=True)

    def _plan_expanded(self, block, loop, ops, boundaries, footprints, caps, used_inside,
                       hoisted) -> tuple[list[Operation], list[Operation]]:
        groups = self._units(ops)
        boundary_ids = {id(op) for op in boundaries}
        group_of = {i: g for g, members in enumerate(groups) for i in members}
        regions = {g: footprints[id(ops[m[0]])] for g, m in enumerate(groups)
                   if id(ops[m[0]]) in boundary_ids}
        expanded = expand(groups, ops, regions, self._item, block.last_op)
        deps = sorted({pair for d in block_dependences(ops)
                       if group_of[d.src] != group_of[d.dst]
                       for pair in expanded.map(group_of[d.src], group_of[d.dst])})
        if loop is None:
            plan = plan_flags(expanded.items, deps, self.limit, self.pipelined, reserved=caps)
            self._record_peaks(plan.peak_events)
            _apply_anchored(expanded.anchor, block.last_op, plan.ops)
            return [], []
        all_ops = list(block.ops)
        index_of = {id(op): i for i, op in enumerate(ops)}
        carried = set()
        uncovered: dict[int, set | None] = {}
        for d in loop_carried_dependences(loop, self._distance(loop)):
            src, dst = id(all_ops[d.src]), id(all_ops[d.dst])
            if src not in index_of or dst not in index_of:
                continue
            g, h = group_of[index_of[src]], group_of[index_of[dst]]
            for p, c in expanded.map(g, h):
                if g == h and g in expanded.entry:  # a region's next instance
                    if g not in uncovered:
                        uncovered[g] = self._uncovered_pairs(ops[groups[g][0]], loop)
                    pair = (expanded.items[p].unit, expanded.items[c].unit)
                    if uncovered[g] is not None and pair not in uncovered[g]:
                        continue
                carried.add((p, c, d.distance))
        for g in expanded.entry:  # a region's ids are re-set by its next instance
            for src, dst in used_inside[id(ops[groups[g][0]])]:
                if dst in expanded.exit.get(g, {}) and src in expanded.entry.get(g, {}):
                    carried.add((expanded.exit[g][dst], expanded.entry[g][src], 1))
        plan = plan_loop_flags(expanded.items, deps, sorted(carried), self.limit, self.pipelined,
                               caps=caps)
        if plan.serialized:
            self.serialized_loops.append(loop)
        self._record_peaks(plan.peak_events)
        _apply_anchored(expanded.anchor, block.last_op, plan.body)
        presets = [op for pre, _ in hoisted for op in pre] + [_make(s) for s in plan.presets]
        drains = [_make(s) for s in plan.drains] + [op for _, dr in hoisted for op in dr]
        return presets, drains

    def _distance(self, loop: scf.ForOp) -> int | None:
        """The carried distances to consider: unbounded for a threaded loop (its next run
        continues like a next iteration, whatever its trip count)."""
        return (1 << 40) if id(loop) in self._threaded else None

    def _uncovered_pairs(self, region_op: Operation, loop: scf.ForOp) -> set | None:
        """Unit pairs ``(u, v)`` of an inner loop whose ops may conflict with its next
        instance (in ``loop``'s next iteration) without that being ordered by its own flags;
        None when not known (not a loop).

        Its back-edge flags are threaded through ``loop``, so its next instance starts as
        its next iteration would. Ops ``x`` and ``y`` anywhere inside it that may conflict
        across ``loop``'s iterations are ordered if the ops of its body that hold them have
        a dependence of the inner loop (intra-iteration forward, or carried at any
        distance): the inner plan orders ``y`` after every earlier op of ``x``'s unit (for a
        nested region, through its entry and exit items). What is left are pairs that
        conflict only across ``loop``."""
        if not isinstance(region_op, scf.ForOp):
            return None
        block = region_op.body.block
        inner = body_ops(block)
        all_inner = list(block.ops)
        top = {id(op): op for op in inner}
        covered = {(id(inner[d.src]), id(inner[d.dst])) for d in block_dependences(inner)}
        covered |= {(id(all_inner[d.src]), id(all_inner[d.dst]))
                    for d in loop_carried_dependences(region_op, self._distance(region_op))}
        leaves = []
        for op in region_op.walk():
            if op is region_op or op.regions or not self._queued(op):
                continue
            holder = op
            while id(holder) not in top:
                holder = holder.parent_op()
            leaves.append((op, self._item(op), id(holder)))
        found = set()
        for x, ix, hx in leaves:
            for y, iy, hy in leaves:
                pair = (ix.unit, iy.unit)
                if ix.unit == iy.unit or pair in found or (hx, hy) in covered:
                    continue
                if ix.inline or iy.inline or carried_conflict(x, y, loop):
                    found.add(pair)
        return found

    def _legacy_fallback(self, block, loop, boundaries, reason: str, planned: bool = False
                         ) -> tuple[list[Operation], list[Operation]]:
        """``barrier_all`` around the regions (no flag plan fits), with a warning."""
        for region_op in boundaries:
            self.barrier_regions.append((region_op, reason))
        ops = body_ops(block)
        for region_op in boundaries:
            if not planned:
                if isinstance(region_op, scf.ForOp):
                    presets, drains = self.run_loop(region_op)
                    insert_before(region_op, presets)
                    insert_after(region_op, drains)
                else:
                    for region in region_op.regions:
                        for inner in region.blocks:
                            self._plan_block(inner, None)
                            if isinstance(region_op, scf.WhileOp) and any(  # rounds in sequence
                                    contains_unit_work(o, self.target) for o in inner.ops):
                                insert_before(inner.last_op, [make_barrier_all()])
            index = ops.index(region_op)
            before = loop is not None or any(self._queued(o) for o in ops[:index])
            after = loop is not None or any(self._queued(o) for o in ops[index + 1:])
            if before:
                insert_before(_first_owned(region_op), [make_barrier_all()])
            if after:
                insert_after(_last_owned(region_op), [make_barrier_all()])
        for segment in split_at(body_ops(block), lambda op: op in boundaries or isinstance(
                op, _REPLANNED + (S.BarrierAllOp,))):
            self.run_segment(segment)
        if loop is not None and contains_unit_work(loop, self.target):
            insert_before(block.last_op, [make_barrier_all()])
        return [], []

    # ------------------------------------------------------------ the previous plan

    def _legacy_block(self, block: Block, in_loop: bool = False) -> None:
        _strip_replanned(block)
        ops = body_ops(block)
        region_ops = [op for op in ops if self._is_boundary(op)]
        for region_op in region_ops:
            self._legacy_region(region_op, ops, in_loop)
        for segment in split_at(ops, lambda op: op in region_ops):
            self.run_segment(segment)

    def _legacy_region(self, op: Operation, block_ops: list[Operation], in_loop: bool) -> None:
        presets, drains = [], []
        if isinstance(op, scf.ForOp):
            presets, drains = self._legacy_loop(op)
        elif isinstance(op, scf.WhileOp):  # rounds in sequence: each region ends drained
            for region in op.regions:
                block = region.blocks[0]
                self.run_block(block, in_loop=True)
                if any(contains_unit_work(inner, self.target) for inner in block.ops):
                    insert_before(block.last_op, [make_barrier_all()])
        else:
            for region in op.regions:
                for block in region.blocks:
                    self._legacy_block(block)
        index = block_ops.index(op)
        before = in_loop or any(self._queued(o) for o in block_ops[:index])
        after = in_loop or any(self._queued(o) for o in block_ops[index + 1:])
        insert_before(op, ([make_barrier_all()] if before else []) + presets)
        insert_after(op, drains + ([make_barrier_all()] if after else []))

    def _legacy_loop(self, loop: scf.ForOp) -> tuple[list[Operation], list[Operation]]:
        block = loop.body.block
        ops = body_ops(block)
        if any(self._is_boundary(op) for op in ops):
            self._legacy_block(block, in_loop=True)
            if contains_unit_work(loop, self.target):
                insert_before(block.last_op, [make_barrier_all()])
            return [], []
        return self._plan_simple_loop(loop)

    def _plan_simple_loop(self, loop: scf.ForOp) -> tuple[list[Operation], list[Operation]]:
        """A loop body without multi-unit regions."""
        block = loop.body.block
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
            for d in loop_carried_dependences(loop, self._distance(loop))
            if id(all_ops[d.src]) in index_of and id(all_ops[d.dst]) in index_of])
        ops = anchors
        if self.naive:
            plan = plan_flags(items, deps, self.limit, self.pipelined, naive=True)
            _apply(ops, block.last_op, plan.ops + [SyncOp(len(items), BARRIER_ALL, order=99)])
            self._record_peaks(plan.peak_events)
            return [], []
        rolled = (self.rolled and not self.legacy and id(loop) not in self._threaded
                  and (constant_value(loop.step) or 0) > 0)
        plan = plan_loop_flags(items, deps, carried, self.limit, self.pipelined,
                               per_slot=not self.legacy, rolled=rolled)
        if plan.serialized:
            self.serialized_loops.append(loop)
        self._record_peaks(plan.peak_events)
        step = constant_value(loop.step) or 1
        ids = _RotatingIds(block.args[0], step)
        _apply(ops, block.last_op, plan.body, ids=ids)
        if ids.ops:
            insert_before(block.first_op, ids.ops)
        start = _RotatingIds(loop.lb, step)
        presets = [_make(s, start) for s in plan.presets]
        drains: list[Operation] = []
        if any(s.modulus for s in plan.drains):
            end_ops, end = _loop_end(loop)
            stop = _RotatingIds(end, step)
            drains = [_make(s, stop) for s in plan.drains]
            drains = end_ops + stop.ops + drains
        else:
            drains = [_make(s) for s in plan.drains]
        return start.ops + presets, drains

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


def _separate_ids(boundaries: list[Operation], owned: dict[int, list[Operation]], limit: int):
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
            by_pair[(op.src.data, op.dst.data)].update(_event_ids(op))
        for pair, ids in by_pair.items():
            top = caps.get(pair, limit)
            renumber = {e: top - len(ids) + n for n, e in enumerate(sorted(ids))}
            caps[pair] = top - len(ids)
            if caps[pair] < 0:
                raise OutOfIds(pair)
            renamed: set[int] = set()
            for op in flags + threaded:
                if (op.src.data, op.dst.data) == pair:
                    _renumber(op, renumber, renamed)
        used_inside[id(region_op)] = set() if isinstance(region_op, scf.ForOp) else set(by_pair)
    return caps, used_inside


def _first_owned(op: Operation) -> Operation:
    """The first of the flag ops put right before ``op`` for it (its presets), or ``op``."""
    first = op
    while isinstance(first.prev_op, S.SetFlagOp):
        first = first.prev_op
    return first


def _last_owned(op: Operation) -> Operation:
    """The last of the drains put right after ``op`` for it, or ``op``."""
    last = op
    while isinstance(last.next_op, S.WaitFlagOp):
        last = last.next_op
    return last


def _apply_anchored(anchors: list[Operation], end: Operation, syncs: list[SyncOp]) -> None:
    """Insert planned sync ops before ``anchors[position]`` (``end`` past the last)."""
    grouped: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in syncs:
        grouped[sync.position].append(sync)
    for position in sorted(grouped):
        anchor = anchors[position] if position < len(anchors) else end
        insert_before(anchor, [_make(s) for s in sorted(grouped[position], key=lambda s: s.order)])


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
           last: Operation | None = None, ids: _RotatingIds | None = None) -> None:
    """Insert planned sync ops before ``ops[position]`` (or at the end); rotating ids are
    computed by ``ids`` (from the loop's induction variable)."""
    grouped: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in syncs:
        grouped[sync.position].append(sync)
    for position, group in grouped.items():
        new_ops = [_make(s, ids) for s in sorted(group, key=lambda s: s.order)]
        if position < len(ops):
            insert_before(ops[position], new_ops)
        elif terminator is not None:
            insert_before(terminator, new_ops)
        else:
            insert_after(last, new_ops)


def _make(sync: SyncOp, ids: _RotatingIds | None = None) -> Operation:
    event = ids.value(sync) if sync.modulus else sync.event
    if sync.kind == SET:
        return make_set(sync.src, sync.dst, event)
    if sync.kind == WAIT:
        return make_wait(sync.src, sync.dst, event)
    if sync.kind == PIPE_BARRIER:
        return make_pipe_barrier(sync.src)
    assert sync.kind == BARRIER_ALL
    return make_barrier_all()


class _RotatingIds:
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


def _loop_end(loop: scf.ForOp) -> tuple[list[Operation], SSAValue]:
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


def _event_ids(op: Operation) -> list[int]:
    """Every id a flag op may use: its constant id, or ``base .. base + M - 1`` of a rotating
    id written by :class:`_RotatingIds`."""
    if op.event is not None:
        return [op.event.value.data]
    base, modulus = _rotating(op)
    return [base.value.value.data + k for k in range(modulus)]


def _renumber(op: Operation, mapping: dict[int, int], renamed: set[int]) -> None:
    """Rename a flag op's id(s) (a monotone renaming keeps a rotating range contiguous); a
    rotating id's base constant, shared by several flag ops, is renamed once (``renamed``)."""
    if op.event is not None:
        op.properties["event"] = IntegerAttr(mapping[op.event.value.data], i64)
        return
    base, _ = _rotating(op)
    if id(base) not in renamed:
        renamed.add(id(base))
        base.properties["value"] = IntegerAttr(mapping[base.value.value.data], IndexType())


def _rotating(op: Operation) -> tuple[arith.ConstantOp, int]:
    """The base constant and the modulus of a rotating id written by :class:`_RotatingIds`."""
    total = op.operands[0].owner
    assert isinstance(total, arith.AddiOp)
    base, rem = total.rhs.owner, total.lhs.owner
    assert isinstance(base, arith.ConstantOp) and isinstance(rem, arith.RemUIOp)
    return base, rem.rhs.owner.value.value.data
