"""The ``modulo-schedule`` pass: Rau-style modulo scheduling of tile loops.

For each innermost ``scf.for`` whose body holds tile ops (and no stage annotations yet), the
pass builds the IR-independent scheduling graph of ``schedule/modulo/graph.py``:

- a node per tile op, on the resource of its unit (capacity 1), occupying and lasting the
  op's duration from the target's latency model (``latency`` property if given);
- an edge per intra-iteration dependence (RAW, WAR, WAW; distance 0), and per loop-carried
  dependence with its iteration distance (``analysis.loop_carried_dependences``);
- *buffer-reuse edges*: a loop-carried WAR / WAW on a buffer ``software-pipeline`` will
  multi-buffer (:mod:`tilesched.analysis.multibuffer`: allocated by the function, used only in
  the loop, every read covered by a write of the same iteration) can be relaxed by its slots,
  so its distance becomes ``distance + slots - 1`` for ``slots`` buffers (option ``slots``,
  default 2). Every other dependence keeps its distance: function arguments, and buffers that
  carry a value from one iteration to the next (an in-place op such as
  ``tile.rowexpand_sub %t, %m, %t`` with no covering write before it).

It then calls :func:`schedule.modulo.modulo_schedule` (or the CP-SAT exact mode with
``exact=true``) and writes ``tile.stage = start // II`` and ``tile.order`` (the op's position
in the steady-state body: by ``start mod II``, then start, then program order) on every tile op,
``tile.async`` on ops of asynchronous units (cp.async), and ``tile.ii`` on the loop, for
``software-pipeline`` to expand. Options: ``num_stages`` (cap, default none), ``max_ii`` (default none),
``exact``, ``slots``. A loop that cannot be scheduled is left unchanged with a warning naming
the op, its footprint, the conflicting rows and the refusing resource.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr, i64
from xdsl.ir import Operation

from tilesched.analysis.dependence import (
    block_dependences,
    buffer_name,
    loop_carried_dependences,
)
from tilesched.analysis.effects import effects_of
from tilesched.analysis.fusion_annotations import span_units
from tilesched.analysis.multibuffer import accesses_by_root, single_buffer_reason
from tilesched.analysis.units import op_cycles as tile_op_cycles
from tilesched.analysis.units import op_route, region_cycles, region_unit
from tilesched.ir.blocks import body_ops
from tilesched.ir.tile import ASYNC, ORDER, STAGE, StageBorderOp
from tilesched.schedule.modulo.exact import exact_min_ii
from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph
from tilesched.schedule.modulo.scheduler import modulo_schedule
from tilesched.target.model import Target
from tilesched.transforms.pass_base import TileContext, TilePass, option

II_ATTR = "tile.ii"


@dataclass(frozen=True)
class ModuloSchedulePass(TilePass):
    """Write tile.stage / tile.order on innermost tile loops from a modulo schedule."""

    name = "modulo-schedule"
    needs = frozenset({"scf.for"})
    provides = frozenset({STAGE, ORDER})
    num_stages: int | None = option(None, "cap on the number of stages (unset: no cap)",
                                    low=1, high=64, tune=(None, 2, 3, 4))
    max_ii: int | None = option(None, "largest II to try (unset: MII + total footprint)",
                                low=1, high=1_000_000)
    exact: bool = option(False, "prove or improve the II with CP-SAT", tune=(False, True))
    slots: int = option(2, "buffer versions software-pipeline may give a reused buffer",
                        low=1, high=16, tune=(1, 2, 3))

    def run(self, module: ModuleOp, env: TileContext) -> None:
        reports = env.remarks.setdefault("modulo", [])
        for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
            if _schedulable(loop, env.target):
                reports.append(self.schedule_loop(loop, env))

    def schedule_loop(self, loop: scf.ForOp, env: TileContext) -> dict:
        """Schedule one loop body and annotate it; returns a report for the remarks."""
        nodes = _tile_nodes(loop, env.target)
        spans = fused_spans(loop, nodes)  # a fused span is one node: one stage, consecutive orders
        graph = build_loop_graph(loop, nodes, env.target, self.slots, spans)
        try:
            result = modulo_schedule(graph, max_ii=self.max_ii,
                                     max_stages=self.num_stages)
        except GraphError as err:
            env.warn(f"loop not modulo-scheduled: {err}", loop)
            return {"scheduled": False, "reason": str(err)}
        starts, ii, method = result.starts, result.ii, "heuristic"
        if ii is None:
            failure = result.failures[-1].text() if result.failures else "no II up to the cap"
            env.warn(f"loop not modulo-scheduled (MII {result.mii}): {failure}", loop)
            return {"scheduled": False, "mii": result.mii}
        if self.exact:
            exact = exact_min_ii(graph, upper=ii, time_limit=10.0, workers=2)
            if exact.ii is not None and exact.ii < ii and exact.starts:
                starts, ii, method = exact.starts, exact.ii, "exact"
        annotate(loop, nodes, starts, ii, env.target, spans)
        return {"scheduled": True, "ii": ii, "mii": result.mii, "stages": max(
            starts.values(), default=0) // ii + 1, "method": method}


def _schedulable(loop: scf.ForOp, target: Target) -> bool:
    """Innermost loops with tile work, no stage annotations of the user's, no stage borders.

    A nested conditional is allowed when all its tile work runs on one unit (it is then a
    node on that unit, e.g. the first-iteration matmul without ``accumulate``).
    """
    ops = body_ops(loop.body.block)
    if any(op.regions and _region_unit(op, target) is None for op in ops):
        return False
    if any(isinstance(op, StageBorderOp) for op in ops):
        return False  # stage borders mark a warp-pipeline loop, scheduled by warp-pipeline
    tiles = [op for op in ops if _unit(op, target) is not None]
    return bool(tiles) and not any(STAGE in op.attributes for op in ops)


def _region_unit(op: Operation, target: Target) -> str | None:
    """The single unit running all tile work nested in a conditional, else None."""
    return region_unit(op, target) if isinstance(op, scf.IfOp) else None


def _unit(op: Operation, target: Target) -> str | None:
    if op.regions:
        return _region_unit(op, target)
    rule = op_route(op, target)
    return rule.unit if rule else None


def _tile_nodes(loop: scf.ForOp, target: Target) -> dict[int, Operation]:
    """Body index -> op that runs on a unit (a tile op, or a one-unit conditional)."""
    return {i: op for i, op in enumerate(body_ops(loop.body.block)) if _unit(op, target)}


def fused_spans(loop: scf.ForOp, nodes: dict[int, Operation]) -> dict[int, list[int]]:
    """Fused spans of the body (``tile.fusion_group``): first index -> member indices. Each is
    scheduled as one node so ``software-pipeline`` keeps it whole (docs/fuse-tiles.md)."""
    units = span_units(body_ops(loop.body.block))
    return {u[0]: u for u in units if len(u) > 1 and all(i in nodes for i in u)}


def op_cycles(op: Operation, target: Target) -> int:
    """The op's duration: its ``latency`` property, else the target's latency model; a
    conditional lasts as long as its longer branch."""
    if isinstance(op, scf.IfOp):
        return region_cycles(op, target)
    return max(1, tile_op_cycles(op, target))


def build_loop_graph(loop: scf.ForOp, nodes: dict[int, Operation], target: Target,
                     slots: int, spans: dict[int, list[int]] | None = None) -> ScheduleGraph:
    """The scheduling graph of a loop body (see the module docstring); each fused span is one
    node (named by its first op) lasting as long as its members together."""
    spans = spans or {}
    head = {i: first for first, members in spans.items() for i in members}
    graph = ScheduleGraph()
    for unit in sorted({_unit(op, target) for op in nodes.values()}):
        graph.add_resource(unit, 1)
    for i, op in nodes.items():
        if head.get(i, i) != i:
            continue
        cycles = sum(op_cycles(nodes[m], target) for m in spans.get(i, [i]))
        graph.add_node(f"n{i}", _unit(op, target), latency=cycles, occupancy=cycles, name=op.name)
    ops = body_ops(loop.body.block)
    for dep in block_dependences(ops):
        src, dst = head.get(dep.src, dep.src), head.get(dep.dst, dep.dst)
        if src in nodes and dst in nodes and src != dst:
            graph.add_edge(f"n{src}", f"n{dst}")
    all_ops = list(loop.body.block.ops)
    index = {id(op): i for i, op in enumerate(ops)}
    relaxable = _multibuffered_names(loop, all_ops)
    for dep in loop_carried_dependences(loop):
        src, dst = index.get(id(all_ops[dep.src])), index.get(id(all_ops[dep.dst]))
        src, dst = head.get(src, src), head.get(dst, dst)
        if src in nodes and dst in nodes:
            distance = dep.distance
            if dep.kind in ("WAR", "WAW") and dep.buffer in relaxable:
                distance += max(slots, 1) - 1
            graph.add_edge(f"n{src}", f"n{dst}", distance=distance)
    return graph


def _multibuffered_names(loop: scf.ForOp, ops: list[Operation]) -> set[str]:
    """Names of the buffers ``software-pipeline`` may multi-buffer
    (:mod:`tilesched.analysis.multibuffer`); a name shared with a buffer it may not is left
    out, so its dependences keep their distances."""
    accesses = accesses_by_root([effects_of(op) for op in ops])
    yes, no = set(), set()
    for root, found in accesses.items():
        name = buffer_name(found[0][1].region)
        (no if single_buffer_reason(root, found, loop) else yes).add(name)
    return yes - no


def annotate(loop: scf.ForOp, nodes: dict[int, Operation], starts: dict[str, int], ii: int,
             target: Target, spans: dict[int, list[int]] | None = None) -> None:
    """Write tile.stage / tile.order / tile.async on the ops and tile.ii on the loop (the
    members of a fused span share its stage and take consecutive orders)."""
    spans = spans or {}
    heads = [i for i in nodes if f"n{i}" in starts]
    ranked = sorted(heads, key=lambda i: (starts[f"n{i}"] % ii, starts[f"n{i}"], i))
    expanded = [(m, starts[f"n{i}"]) for i in ranked for m in spans.get(i, [i])]
    for order, (i, start) in enumerate(expanded):
        op = nodes[i]
        op.attributes[STAGE] = IntegerAttr(start // ii, i64)
        op.attributes[ORDER] = IntegerAttr(order, i64)
        if target.units[_unit(op, target)].kind == "async":
            op.attributes[ASYNC] = UnitAttr()
    loop.attributes[II_ATTR] = IntegerAttr(ii, i64)


PASS = ModuloSchedulePass
