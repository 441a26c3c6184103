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
from tilesched.ir.sync import make_barrier_all
from tilesched.schedule.flags import (
    BARRIER_ALL,
    Item,
    SyncOp,
    plan_flags,
    plan_loop_flags,
)
from tilesched.schedule.flags.pool import OutOfIds
from tilesched.target.model import Target
from tilesched.transforms.insert_sync.flag_ir import (
    RotatingIds,
    apply_anchored,
    apply_syncs,
    event_ids,
    loop_end,
    make_sync,
    renumber_ids,
    separate_ids,
)
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
            used[(op.src.data, op.dst.data)].update(event_ids(op))
        renamed: set[int] = set()
        for op in flags:
            ids = sorted(used[(op.src.data, op.dst.data)])
            renumber_ids(op, {e: n for n, e in enumerate(ids)}, renamed)

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
            caps, used_inside = separate_ids(boundaries, owned, self.limit)
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
            apply_anchored(expanded.anchor, block.last_op, plan.ops)
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
        apply_anchored(expanded.anchor, block.last_op, plan.body)
        presets = [op for pre, _ in hoisted for op in pre] + [make_sync(s) for s in plan.presets]
        drains = [make_sync(s) for s in plan.drains] + [op for _, dr in hoisted for op in dr]
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
            apply_syncs(ops, block.last_op, plan.ops + [SyncOp(len(items), BARRIER_ALL, order=99)])
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
        ids = RotatingIds(block.args[0], step)
        apply_syncs(ops, block.last_op, plan.body, ids=ids)
        if ids.ops:
            insert_before(block.first_op, ids.ops)
        start = RotatingIds(loop.lb, step)
        presets = [make_sync(s, start) for s in plan.presets]
        drains: list[Operation] = []
        if any(s.modulus for s in plan.drains):
            end_ops, end = loop_end(loop)
            stop = RotatingIds(end, step)
            drains = [make_sync(s, stop) for s in plan.drains]
            drains = end_ops + stop.ops + drains
        else:
            drains = [make_sync(s) for s in plan.drains]
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
        apply_syncs(anchors, None, plan.ops, anchor_after)

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
