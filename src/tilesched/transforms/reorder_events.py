"""The ``reorder-events`` pass: reorder each block so its synchronization fits and runs fast.

Runs before ``insert-sync``. The children of every block are reordered within their
dependences so that the ``set_flag`` / ``wait_flag`` events insert-sync will need stay
within the target's event ids per directed unit pair, and, among the orders that fit, the
program takes the fewest cycles. Nested bodies are reordered first (innermost out); moving
ops in place keeps those rewrites even when the outer order does not change.

What may move: dependences come from read/write effects (RAW, WAR, WAW; unknown effects
order everything), SSA def-use, and a stability chain that keeps ``scf.for`` / ``scf.if``
(black boxes with conservative effect summaries) in their relative order. The dependences
are insert-sync's own (:func:`reduced_edges`: the same transitive closure as every
conflicting pair, and the same edges in every order that keeps them), so the flags this
pass predicts are the flags insert-sync will plan. Existing
``sync`` ops and stage borders are hard barriers: nothing moves across them.

The algorithms are pure (:mod:`tilesched.schedule.reorder.event_schedule`, and
:mod:`tilesched.schedule.reorder.exact` for ``exact=true``); this module only translates IR
to a :class:`Segment` and back. The idea comes from the source document's
OutOfOrderSchedulerPass; docs/reorder-events.md says where and why tilesched differs
(events freed along happens-before, speed as a second goal, an exact mode).

Options: ``strategy`` = ``all`` (default: try the three pick strategies, keep the best),
``min-max-sum``, ``min-sum-max`` or ``min-max``; ``exact`` = CP-SAT for segments of at most
``exact-size`` unit ops (``exact-seconds`` each).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from tilesched.analysis.dependence import loop_carried_dependences
from tilesched.analysis.fusion_annotations import refresh_fusion_groups, span_units, unit_pairs
from tilesched.analysis.reduced_deps import reduced_edges
from tilesched.analysis.units import (
    PerSignature,
    contains_unit_work,
    op_cycles,
    op_route,
    region_unit,
)
from tilesched.ir.affine import constant_value
from tilesched.ir.blocks import body_ops, functions, split_at
from tilesched.ir.tile import StageBorderOp, TileOp
from tilesched.schedule.reorder.event_schedule import STRATEGIES
from tilesched.schedule.reorder.order_cost import Machine, evaluate_order
from tilesched.schedule.reorder.search import (
    ReorderReport,
    SegmentSchedule,
    adopt,
    schedule_segment,
)
from tilesched.schedule.reorder.segment import Segment
from tilesched.transforms.pass_base import TileContext, TilePass, option, paused_gc


@dataclass(frozen=True)
class ReorderEventsPass(TilePass):
    """Reorder each block so the units overlap and live event flags fit the target's ids."""

    name = "reorder-events"
    families = frozenset({"flags"})

    strategy: str = option("all", "list-scheduling priority, or every one and the best",
                           choices=("all", *STRATEGIES), tune=("all", *STRATEGIES))
    objective: str = option("fit", "fit: fewest cycles within the event ids, cycles: fewest cycles",
                            choices=("fit", "cycles"), tune=("fit", "cycles"))
    exact: bool = option(False, "also solve small segments exactly with CP-SAT")
    exact_size: int = option(12, "largest segment (ops) solved exactly", low=2, high=40)
    exact_seconds: int = option(10, "CP-SAT time limit per segment", low=1, high=3600)

    def run(self, module: ModuleOp, env: TileContext) -> None:
        report = ReorderReport()
        if env.target.sync != "flags":
            env.warn(f"reorder-events: target '{env.target.name}' synchronizes with "
                     f"{env.target.sync}, not event flags; the program is left as it is")
            return
        with paused_gc():
            for function in functions(module):
                report.cycles += _BlockReorderer(self, env, report).block(function.body.block,
                                                                          None)
        env.remarks["reorder_events"] = report.as_dict()
        refresh_fusion_groups(module, env.target)


class _BlockReorderer:
    """Walks a function's blocks innermost first, reorders each segment in place."""

    def __init__(self, options: ReorderEventsPass, env: TileContext, report: ReorderReport) -> None:
        self.options = options
        self.env = env
        self.report = report
        target = env.target
        self.target = target
        self.machine = Machine.of(target)
        self.durations: dict[Operation, int] = {}
        # node() of a tile op without properties/attributes (route and duration depend on
        # nothing else)
        self.plain = PerSignature(self._routed)

    def block(self, block: Block, loop: scf.ForOp | None) -> int:
        """Reorder ``block`` (nested blocks first); returns its estimated cycles."""
        for op in body_ops(block):
            if op.regions:
                self.durations[op] = self.region_cycles(op)
        segments = _segments(body_ops(block))
        total = 0
        for ops in segments:
            carried = _carried(loop, ops) if loop is not None and len(segments) == 1 else None
            total += self.segment(block, ops, carried, loop)
        return total

    def region_cycles(self, op: Operation) -> int:
        """Reorder the bodies of a region op; its estimated cycles (trip count times a body)."""
        per_region = []
        for region in op.regions:
            cycles = 0
            for block in region.blocks:
                cycles += self.block(block, op if isinstance(op, scf.ForOp) else None)
            per_region.append(cycles)
        return max(per_region, default=0)

    def segment(self, block: Block, ops: list[Operation], carried, loop) -> int:
        """Schedule one segment, move its ops if the order changed; its estimated cycles."""
        trips = _trip_count(loop) if loop is not None else 1
        spans = span_units(ops)  # a fused span is one node: it moves whole
        graph = self.graph(ops, carried, min(trips, 2), spans)
        if len(spans) < 2 or not any(u is not None for u in graph.units):
            return sum(self.durations.get(op, 0) for op in ops) * trips
        result = schedule_segment(graph, self.machine, self.options.strategy,
                                  self.options.objective)
        exact = self.options.exact and self._solve_exactly(graph, result)
        self.report.add(result, exact)
        if not result.strict:
            self._warn_relaxed(ops[0], result)
        if result.changed:
            _move(block, ops, [ops[i] for k in result.best.order for i in spans[k]])
        return result.best.makespan * trips // max(1, min(trips, 2))

    def graph(self, ops: list[Operation], carried, trips: int,
              spans: list[list[int]] | None = None) -> Segment:
        """The IR segment as a :class:`Segment` (units, durations, dependences); each fused
        span (``spans``: indices into ``ops``, default :func:`span_units`) is one node."""
        spans = span_units(ops) if spans is None else spans
        units, inline, control, boundary, durations = [], [], [], [], []
        for span in spans:
            op = ops[span[0]]
            unit, is_inline, is_boundary, cycles = self.node(op)
            units.append(unit)
            inline.append(is_inline)
            control.append(bool(op.regions))
            boundary.append(is_boundary)
            durations.append(cycles + sum(self.node(ops[i])[3] for i in span[1:]))
        if len(spans) == len(ops):  # no fused span: node k is ops[k]
            deps, order = reduced_edges(ops), _ssa_edges(ops) + _control_chain(control)
        else:
            deps = unit_pairs(spans, reduced_edges(ops))
            order = unit_pairs(spans, _ssa_edges(ops)) + _control_chain(control)
            carried = unit_pairs(spans, carried) if carried is not None else None
        return Segment(units, durations, inline, control, boundary, deps, order, carried, trips)

    def node(self, op: Operation) -> tuple[str | None, bool, bool, int]:
        """(unit, inline, boundary, cycles) of ``op``: its unit as insert-sync sees it
        (``FlagSync._item``), and its duration as the simulator's (a tile op's ``latency``
        property wins; a region op's estimate from reordering its bodies)."""
        target = self.target
        if op.regions:
            unit = region_unit(op, target)
            if unit is not None:
                return unit, target.units[unit].kind == "inline", False, self.durations[op]
            return None, False, contains_unit_work(op, target), self.durations[op]
        if not isinstance(op, TileOp):
            return self._routed(op)
        if op.properties or op.attributes:  # latency, pipe, fusion group: op by op
            return self._routed(op)
        return self.plain(op)

    def _routed(self, op: Operation) -> tuple[str | None, bool, bool, int]:
        """:meth:`node` of an op without regions."""
        target = self.target
        rule = op_route(op, target)
        cycles = op_cycles(op, target, rule) if isinstance(op, TileOp) else 0
        if rule is None or rule.unit not in target.units:
            return None, False, False, cycles
        return rule.unit, target.units[rule.unit].kind == "inline", False, cycles

    def _solve_exactly(self, graph: Segment, result: SegmentSchedule) -> bool:
        """Exact mode: CP-SAT on small segments; keeps its order if it beats the heuristic."""
        from tilesched.schedule.reorder.exact import exact_order, supports

        if not supports(graph, self.options.exact_size):
            return False
        solved = exact_order(graph, self.machine, self.options.exact_seconds)
        if solved is None:
            return False
        cost = evaluate_order(graph, solved.order, self.machine, "exact")
        heuristic = result.best
        adopt(result, cost, self.options.objective)
        if cost.makespan and heuristic.fits:
            self.report.exact_gaps.append(heuristic.makespan / cost.makespan)
        return True

    def _warn_relaxed(self, op: Operation, result: SegmentSchedule) -> None:
        best, limit = result.best, self.machine.limit
        over = ", ".join(pair for pair, n in sorted(best.ids_used.items()) if n >= limit)
        over = over or "some unit pair"
        fallback = f"insert-sync will fall back to barrier_all {best.fallbacks} time(s)"
        if result.fit_found:
            message = (f"reorder-events: orders that keep the flags of {over} within {limit} "
                       f"event ids are slower here; keeping the fastest order ({fallback})")
        else:
            message = (f"reorder-events: no order found that keeps the flags of {over} within "
                       f"{limit} event ids; using the fastest best-effort order ({fallback})")
        self.env.warn(message, op)


def _segments(ops: list[Operation]) -> list[list[Operation]]:
    """Split a block at hard barriers (existing sync ops, stage borders): nothing crosses them."""
    return split_at(ops, lambda op: op.name.startswith("sync.") or isinstance(op, StageBorderOp))


def _ssa_edges(ops: list[Operation]) -> list[tuple[int, int]]:
    """Def-use edges among ``ops`` (uses nested in regions count for the region op)."""
    index = {op: k for k, op in enumerate(ops)}
    edges = set()
    for j, op in enumerate(ops):
        for inner in (op.walk() if op.regions else (op,)):
            for operand in inner.operands:
                i = index.get(operand.owner)
                if i is not None and i != j:
                    edges.add((i, j))
    return sorted(edges)


def _control_chain(control: list[bool]) -> list[tuple[int, int]]:
    """The stability chain: each control node stays after the previous one."""
    nodes = [k for k, is_control in enumerate(control) if is_control]
    return list(zip(nodes, nodes[1:], strict=False))


def _carried(loop: scf.ForOp, ops: list[Operation]) -> list[tuple[int, int, int]]:
    """Loop-carried dependences of ``loop``: (producer, consumer, distance), indices into ``ops``."""
    all_ops = list(loop.body.block.ops)
    index = {op: k for k, op in enumerate(ops)}
    found = []
    for dep in loop_carried_dependences(loop):
        src, dst = index.get(all_ops[dep.src]), index.get(all_ops[dep.dst])
        if src is not None and dst is not None:
            found.append((src, dst, dep.distance))
    return sorted(set(found))


def _trip_count(loop: scf.ForOp) -> int:
    """Constant trip count of ``loop``, or 2 when unknown (enough to see the steady state)."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if None in (lb, ub, step) or step <= 0:
        return 2
    return max(0, math.ceil((ub - lb) / step))


def _move(block: Block, ops: list[Operation], new_order: list[Operation]) -> None:
    """Put ``ops`` (consecutive in ``block``) in ``new_order`` where they were."""
    anchor = ops[-1].next_op
    for op in ops:
        op.detach()
    for op in new_order:
        if anchor is not None:
            block.insert_op_before(op, anchor)
        else:
            block.add_op(op)


PASS = ReorderEventsPass
