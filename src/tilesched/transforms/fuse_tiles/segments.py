"""From a block of IR to the segments fusion plans: :class:`~tilesched.schedule.fusion.graph.FusionGraph`.

A block is cut at its hard boundaries (op-semantics table: calls, sync ops, loops,
conditionals, ops the analysis does not know): nothing moves across them, so no group crosses
one. In each segment, the ops with effects become graph nodes; pure ops stay outside the graph
(they depend on nothing that moves and are placed around the spans afterwards).

The direct dataflow edges come from a forward walk over the whole block: for each read, the
latest write it sees; when that write covers exactly the tile read, the writer is the read's
*producer*. A written tile may stay in registers (``write_may_stay``) only when every read that
sees it is by a fusible op of the same segment and domain reading exactly that tile, and the
liveness analysis says it is dead at the block's end (:mod:`tilesched.analysis.fusion_liveness`).
Costs come from the target's fused-execution model (:meth:`Target.fused_cycles`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation

from tilesched.analysis.effects import effects_of
from tilesched.analysis.fusion_liveness import LivenessFacts
from tilesched.analysis.fusion_semantics import HARD_BOUNDARY, PURE, op_semantics
from tilesched.analysis.reduced_deps import reduced_dependences
from tilesched.analysis.regions import Region, disjoint, root_region
from tilesched.analysis.units import op_route
from tilesched.ir.blocks import body_ops
from tilesched.ir.tile import CallOp, TileOp
from tilesched.ir.types import element_bytes, memref_shape
from tilesched.schedule.fusion.graph import FusionGraph, FusionNode, Stream
from tilesched.target.model import Target, stream_cycles
from tilesched.transforms.fuse_tiles.annotations import group_id


@dataclass
class Segment:
    """A barrier-free run of a block: its ops, the graph nodes among them, hand-written groups."""

    ops: list[Operation]
    nodes: list[Operation]
    graph: FusionGraph
    pinned: dict[int, list[int]] = field(default_factory=dict)  # hand-written id -> node indices


def block_segments(block: Block, target: Target, facts: LivenessFacts) -> list[Segment]:
    """The segments of ``block`` with their fusion graphs (see the module docstring)."""
    return _Builder(block, target, facts).segments()


class _Builder:
    """Builds the segments of one block (op semantics and regions computed once per op)."""

    def __init__(self, block: Block, target: Target, facts: LivenessFacts):
        self.ops = body_ops(block)
        self.target = target
        self.facts = facts
        self.semantics = {op: op_semantics(op) for op in self.ops}
        self.regions: dict = {}
        self.flow = _Dataflow(self.ops, self.region)

    def region(self, value) -> Region:
        found = self.regions.get(value)
        if found is None:
            found = self.regions[value] = root_region(value)
        return found

    def segments(self) -> list[Segment]:
        runs, current = [], []
        for op in self.ops:
            if self.semantics[op].kind == HARD_BOUNDARY:
                runs.append(current)
                current = []
            else:
                current.append(op)
        runs.append(current)
        return [self.segment(run) for run in runs if run]

    def segment(self, ops: list[Operation]) -> Segment:
        nodes = [op for op in ops if self.semantics[op].kind != PURE]
        index = {op: k for k, op in enumerate(nodes)}
        pinned: dict[int, list[int]] = {}
        for k, op in enumerate(nodes):
            if group_id(op) is not None:
                pinned.setdefault(group_id(op), []).append(k)
        pinned_ops = {nodes[k] for members in pinned.values() for k in members}
        tiles: dict[Region, int] = {}
        domains = {op: self.domain(op, pinned_ops) for op in nodes}
        graph_nodes = [self.node(op, domains, index, tiles) for op in nodes]
        producer = self.flow.producer
        dataflow = sorted({(index[producer[op, s]], index[op])
                           for op in nodes if domains[op] is not None
                           for s in range(len(graph_nodes[index[op]].reads))
                           if (op, s) in producer and producer[op, s] in index
                           and domains.get(producer[op, s]) == domains[op]})
        edges = sorted({(d.src, d.dst) for d in reduced_dependences(nodes)})  # same closure
        return Segment(ops, nodes, FusionGraph(graph_nodes, edges, dataflow), pinned)

    def domain(self, op: Operation, pinned: set[Operation]) -> tuple | None:
        """(unit, iteration domain) of a fusible op, or None when it cannot be fused here."""
        semantics = self.semantics[op]
        if not semantics.fusible or op in pinned or not isinstance(op, TileOp) \
                or op.latency is not None:
            return None
        rule = op_route(op, self.target)
        unit = self.target.units.get(rule.unit) if rule is not None else None
        if unit is None or unit.fusion is None:
            return None
        return (rule.unit, semantics.domain)

    def node(self, op: Operation, domains: dict, index: dict, tiles: dict[Region, int]
             ) -> FusionNode:
        domain = domains[op]
        if domain is None:
            return FusionNode(False, name=op.name)
        rule = op_route(op, self.target)
        unit = self.target.units[rule.unit]
        model = unit.fusion
        bandwidth = self.target.bandwidth(rule)
        memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]

        def stream(value, producer=None) -> Stream:
            size = _bytes(value)
            return Stream(stream_cycles(size, bandwidth),
                          stream_cycles(size, model.register_bytes_per_cycle), producer)

        flow = self.flow
        reads = []
        for slot, value in enumerate(memrefs[:-1]):
            producer = flow.producer.get((op, slot))
            same = producer in index and domains.get(producer) == domain
            reads.append(stream(value, index[producer] if same else None))
        readers = flow.readers.get(op, [])
        partners = all(r in index and domains.get(r) == domain for r in readers)
        stays = bool(readers) and partners and op not in flow.read_elsewhere \
            and not self.facts.escapes.get(op, True)
        keys = [tiles.setdefault(self.region(value), len(tiles)) for value in memrefs]
        return FusionNode(
            fusible=True, domain=domain,
            head_fixed=unit.fixed if rule.fixed is None else rule.fixed,
            member_fixed=model.member_fixed, factor=unit.op_factor.get(op.name, 1.0),
            reads=tuple(reads), write=stream(memrefs[-1]),
            readers=tuple(sorted({index[r] for r in readers})) if partners else (),
            write_may_stay=stays, tiles=tuple(dict.fromkeys(keys)),
            spill=model.spill_cycles(self.semantics[op].elements, bandwidth),
            live_tiles=model.live_tiles, name=op.name)


class _Dataflow:
    """Producers and readers of tiles along a block (see the module docstring)."""

    def __init__(self, ops: list[Operation], region=root_region):
        self.producer: dict[tuple[Operation, int], Operation] = {}
        self.readers: dict[Operation, list[Operation]] = {}
        self.read_elsewhere: set[Operation] = set()
        self.current: dict[object, list[tuple[Region, Operation]]] = {}
        self.region = region
        for op in ops:
            self.visit(op)

    def visit(self, op: Operation) -> None:
        if isinstance(op, TileOp) and not isinstance(op, CallOp):
            memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
            reads = memrefs[:-1] if op.read_operands() else []
            for slot, value in enumerate(reads):
                self.read(op, slot, self.region(value))
            if len(op.read_operands()) > len(reads):  # matmul {accumulate} reads its output
                self.read(op, -1, self.region(memrefs[-1]))
            self.write(op, self.region(memrefs[-1]))
            return
        effects = effects_of(op)
        roots = {self.region(v).root for inner in op.walk() for v in inner.operands
                 if isinstance(v.type, MemRefType)}
        for root in roots if effects.unknown else ():
            for _, writer in self.current.get(root, []):
                self.read_elsewhere.add(writer)
        for access in effects.reads:
            self.read(op, -1, access.region)
        for access in effects.writes:
            self.write(op, access.region)

    def read(self, op: Operation, slot: int, region: Region) -> None:
        overlapping = [(r, w) for r, w in self.current.get(region.root, []) if not disjoint(r, region)]
        if overlapping and overlapping[-1][0] == region and slot >= 0:
            writer = overlapping[-1][1]
            self.producer[op, slot] = writer
            self.readers.setdefault(writer, []).append(op)
            overlapping = overlapping[:-1]
        for _, writer in overlapping:
            self.read_elsewhere.add(writer)

    def write(self, op: Operation, region: Region) -> None:
        entries = [(r, w) for r, w in self.current.get(region.root, []) if r != region]
        self.current[region.root] = [*entries, (region, op)]


def _bytes(value) -> int:
    shape = memref_shape(value.type)
    size = element_bytes(value.type)
    for dim in shape:
        size *= dim
    return size
