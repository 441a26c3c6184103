"""Translate a pipelined loop body into schedule data: staged ops, dependence edges, buffers.

- Edges: dependences inside one iteration (``block_dependences``) and between
  iterations (the smallest conflicting distance per pair of accesses, as in
  :mod:`tilesched.analysis.dependence`), except the carried ones on buffers that
  will be multi-buffered: those get their distance from the slot count.
- Multi-buffer candidates: :mod:`tilesched.analysis.multibuffer` (``memref.alloc``
  buffers used only inside the loop whose every read is covered by an earlier write
  of the same iteration, so no value flows from one iteration to the next through them).
- Execution modes (group targets): the async queues an op issues to and whether
  part of it runs on the issuer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.dependence import block_dependences, min_conflict_distance
from tilesched.analysis.effects import effects_of
from tilesched.analysis.multibuffer import accesses_by_root, single_buffer_reason
from tilesched.analysis.regions import root_region
from tilesched.analysis.units import op_route
from tilesched.ir.affine import constant_value
from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.schedule.pipeline.stages import RAW, UNKNOWN, WAR, WAW, Edge, StagedOp
from tilesched.target.model import Target
from tilesched.transforms.software_pipeline.annotations import BodyParts, order_of, stage_of


@dataclass
class LoopModel:
    """A loop body as schedule data (ids are positions in ``parts.staged``)."""

    loop: scf.ForOp
    parts: BodyParts
    ops: dict[int, StagedOp]
    edges: list[Edge]
    buffers: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)
    roots: dict[str, SSAValue] = field(default_factory=dict)
    why_single: dict[SSAValue, str] = field(default_factory=dict)
    edge_buffer: dict[Edge, str] = field(default_factory=dict)  # "%name" of the buffer
    edge_root: dict[Edge, SSAValue] = field(default_factory=dict)  # carried edges: the root


def distance_limit(loop: scf.ForOp) -> int:
    """Largest iteration distance: trip count - 1 for constant bounds, else unbounded."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if None not in (lb, ub, step) and step > 0:
        return max(0, -((lb - ub) // step) - 1)
    return 1 << 40


def build_model(loop: scf.ForOp, parts: BodyParts, target: Target) -> LoopModel:
    """Staged ops, edges and multi-buffer candidates of ``loop`` on ``target``."""
    staged = parts.staged
    effects = [effects_of(op) for op in staged]
    groups = target.sync == "groups"
    ops = {}
    for i, op in enumerate(staged):
        queues, inline = run_mode(op, target) if groups else (frozenset(), True)
        ops[i] = StagedOp(i, stage_of(op), order_of(op), queues, inline)
    model = LoopModel(loop, parts, ops, [])
    accesses = accesses_by_root(effects)
    for root, found in accesses.items():
        reason = single_buffer_reason(root, found, loop)
        if reason is None:
            key = f"b{len(model.roots)}"
            model.roots[key] = root
            model.buffers[key] = sorted({(i, a.write) for i, a in found})
        else:
            model.why_single[root] = reason
    candidates = set(model.roots.values())
    for dep in block_dependences(staged):
        edge = Edge(dep.src, dep.dst, 0, dep.kind)
        model.edges.append(edge)
        model.edge_buffer[edge] = dep.buffer
    roots: dict[tuple[int, int, int, str], SSAValue] = {}
    for edge in _carried_edges(loop, effects, candidates, roots):
        model.edges.append(edge)
        root = roots.get((edge.src, edge.dst, edge.distance, edge.kind))
        if root is not None:
            model.edge_root[edge] = root
            model.edge_buffer[edge] = f"%{root.name_hint}" if root.name_hint else str(root.type)
        else:
            model.edge_buffer[edge] = "unknown memory"
    return model


def _carried_edges(loop: scf.ForOp, effects, candidates: set[SSAValue],
                   root_of_edge: dict) -> list[Edge]:
    """Smallest carried distance per (src, dst, kind), skipping multi-buffer candidates."""
    limit = distance_limit(loop)
    best: dict[tuple[int, int, str], int] = {}
    for i, first in enumerate(effects):
        for j, second in enumerate(effects):
            if first.unknown or second.unknown:
                if limit >= 1 and (first.accesses or first.unknown) and \
                        (second.accesses or second.unknown):
                    best[(i, j, UNKNOWN)] = 1
                continue
            for a in first.accesses:
                for b in second.accesses:
                    root = a.region.root
                    if root is not b.region.root or root in candidates or not (a.write or b.write):
                        continue
                    d = min_conflict_distance(a.region, b.region, loop, limit)
                    if d is None:
                        continue
                    kind = WAW if a.write and b.write else (RAW if a.write else WAR)
                    if d < best.get((i, j, kind), d + 1):
                        best[(i, j, kind)] = d
                        root_of_edge[(i, j, d, kind)] = root
    return [Edge(i, j, d, kind) for (i, j, kind), d in sorted(best.items())]


def run_mode(op: Operation, target: Target) -> tuple[frozenset[int], bool]:
    """Async group queues ``op`` (or ops nested in it) issue to, and whether it runs inline."""
    queues: set[int] = set()
    inline = False
    for inner in op.walk():
        if isinstance(inner, TileOp) and not isinstance(inner, ViewOp | SlotOp | StageBorderOp):
            queue = async_queue(inner, target)
            if queue is None:
                inline = True
            else:
                queues.add(queue)
        elif inner.name in ("sync.wait_group", "sync.barrier_all", "sync.barrier"):
            inline = True
    return frozenset(queues), inline or not queues


def async_queue(op: Operation, target: Target) -> int | None:
    """The group queue a tile op runs on, or None when it runs inline."""
    rule = op_route(op, target)
    unit = target.units.get(rule.unit) if rule is not None else None
    if unit is None or unit.kind != "async":
        return None
    if rule.async_queue is not None:
        return rule.async_queue
    mapped = [r.async_queue for r in target.routes if r.unit == unit.name and r.async_queue is not None]
    return mapped[0] if mapped else 0


def async_before(loop: scf.ForOp, target: Target) -> dict[int, set[SSAValue]]:
    """Per queue, roots written by async ops issued before ``loop`` (in program order) that
    no ``wait_group`` with pending 0 has completed yet."""
    pending: dict[int, set[SSAValue]] = defaultdict(set)
    for op in _ops_before(loop):
        if op.name == "sync.wait_group" and op.properties.get("pending") is not None \
                and op.properties["pending"].value.data == 0:
            pending.pop(op.properties["queue"].value.data, None)
        elif isinstance(op, TileOp) and not isinstance(op, ViewOp | SlotOp | StageBorderOp):
            queue = async_queue(op, target)
            if queue is not None and op.written() is not None:
                pending[queue].add(root_region(op.written()).root)
    return pending


def _ops_before(op: Operation) -> list[Operation]:
    """Ops that run before ``op`` in program order: earlier ops of each enclosing block (with
    everything nested in them), outermost first."""
    chain = []
    while op.parent_block() is not None:
        earlier = []
        for other in op.parent_block().ops:
            if other is op:
                break
            earlier.extend(other.walk())
        chain.append(earlier)
        op = op.parent_op()
        if op is None:
            break
    return [o for earlier in reversed(chain) for o in earlier]
