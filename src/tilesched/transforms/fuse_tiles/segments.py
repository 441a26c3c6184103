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
Costs come from the target's fused-execution model (:meth:`Target.fused_terms`, the terms
:meth:`Target.fused_cycles` prices the simulator's spans with).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation

from tilesched.analysis.dependence import loop_carried_dependences
from tilesched.analysis.effects import effects_of
from tilesched.analysis.fusion_annotations import group_id
from tilesched.analysis.fusion_liveness import LivenessFacts
from tilesched.analysis.fusion_semantics import HARD_BOUNDARY, PURE, op_semantics
from tilesched.analysis.reduced_deps import reduced_edges
from tilesched.analysis.regions import Region, disjoint, root_region
from tilesched.analysis.units import PerSignature, op_cycles, op_route
from tilesched.ir.blocks import body_ops
from tilesched.ir.tile import CallOp, TileOp
from tilesched.ir.types import element_bytes, element_type_name, memref_shape
from tilesched.ir.valid import describe_region, is_partial
from tilesched.schedule.fusion.graph import FusionGraph, FusionNode, Stream
from tilesched.target.model import OperandShape, Target


@dataclass
class Segment:
    """A barrier-free run of a block: its ops, the graph nodes among them, hand-written groups."""

    ops: list[Operation]
    nodes: list[Operation]
    graph: FusionGraph
    pinned: dict[int, list[int]] = field(default_factory=dict)  # hand-written id -> node indices
    remarks: list[tuple[str, Operation]] = field(default_factory=list)  # why an edge is a boundary


def block_segments(block: Block, target: Target, facts: LivenessFacts) -> list[Segment]:
    """The segments of ``block`` with their fusion graphs (see the module docstring)."""
    return _Builder(block, target, facts).segments()


class _Builder:
    """Builds the segments of one block (op semantics, routes and memref operands computed once
    per op; regions, tile keys and operand shapes once per value: a block reuses a few tiles
    many times)."""

    def __init__(self, block: Block, target: Target, facts: LivenessFacts):
        self.block = block
        self.ops = body_ops(block)
        self.target = target
        self.facts = facts
        self.semantics = {op: op_semantics(op) for op in self.ops}
        self.regions: dict = {}
        self.shapes: dict = {}
        self.plain_routes = PerSignature(lambda op: op_route(op, target))
        self.tiles: dict[Region, int] = {}
        self.value_tiles: dict[int, int] = {}
        self.flow = _Dataflow(self.ops, self.region)

    def region(self, value) -> Region:
        found = self.regions.get(value)
        if found is None:
            found = self.regions[value] = root_region(value)
        return found

    def shape(self, value) -> OperandShape:
        """What the target's latency model needs to know about memref ``value``."""
        found = self.shapes.get(value)
        if found is None:
            found = self.shapes[value] = OperandShape(
                memref_shape(value.type), element_bytes(value.type), element_type_name(value.type))
        return found

    def route(self, op: Operation):
        """``op_route``, once per op name and operand types for tile ops without a ``pipe``."""
        if isinstance(op, TileOp) and op.pipe is None:
            return self.plain_routes(op)
        return op_route(op, self.target)

    def segments(self) -> list[Segment]:
        runs, current = [], []
        for op in self.ops:
            if self.semantics[op].kind == HARD_BOUNDARY:
                runs.append(current)
                current = []
            else:
                current.append(op)
        runs.append(current)
        segments = [self.segment(run) for run in runs if run]
        loop = self.block.parent_op()
        if len(segments) == 1 and isinstance(loop, scf.ForOp):
            segment = segments[0]
            segment.graph.carried = _carried(loop, segment.nodes)
            segment.graph.trips = 2  # enough to see the back-edge flags' waits
        return segments

    def segment(self, ops: list[Operation]) -> Segment:
        nodes = [op for op in ops if self.semantics[op].kind != PURE]
        index = {op: k for k, op in enumerate(nodes)}
        pinned: dict[int, list[int]] = {}
        for k, op in enumerate(nodes):
            if group_id(op) is not None:
                pinned.setdefault(group_id(op), []).append(k)
        pinned_ops = {nodes[k] for members in pinned.values() for k in members}
        self.tiles, self.value_tiles = {}, {}  # per segment: region -> key, id(value) -> key
        domains = {op: self.domain(op, pinned_ops) for op in nodes}
        graph_nodes = [self.node(op, domains, index) for op in nodes]
        dataflow = sorted({(stream.producer, k) for k, node in enumerate(graph_nodes)
                           for stream in node.reads if stream.producer is not None})
        edges = reduced_edges(nodes)  # the transitive closure of every dependence, sorted
        return Segment(ops, nodes, FusionGraph(graph_nodes, edges, dataflow), pinned,
                       self.valid_boundaries(nodes, domains))

    def valid_boundaries(self, nodes: list[Operation], domains: dict) -> list[tuple[str, Operation]]:
        """Remarks for dataflow edges between fusible ops of one unit and shape that are not
        fused because their valid regions cannot be proven equal (a fusion boundary)."""
        remarks = []
        for op in nodes:
            domain = domains[op]
            for slot in range(len(self.flow.memrefs.get(op, ())) - 1) if domain else ():
                producer = self.flow.producer.get((op, slot))
                other = domains.get(producer)
                if other is not None and other[:2] == domain[:2] and other[2] != domain[2]:
                    written = self.flow.memrefs[producer][-1]
                    read = self.flow.memrefs[op][slot]
                    remarks.append((f"fuse-tiles: not fused with the '{producer.name}' that "
                                    f"produces operand {slot}: valid regions "
                                    f"{describe_region(written)} and {describe_region(read)} "
                                    "cannot be proven equal (a fusion boundary)", op))
        return remarks

    def tile_key(self, value) -> int:
        """The segment's number for the region ``value`` covers (equal regions, one number)."""
        key = self.value_tiles.get(id(value))
        if key is None:
            key = self.value_tiles[id(value)] = self.tiles.setdefault(self.region(value),
                                                                      len(self.tiles))
        return key

    def domain(self, op: Operation, pinned: set[Operation]) -> tuple | None:
        """(unit, iteration domain) of a fusible op, or None when it cannot be fused here."""
        semantics = self.semantics[op]
        if not semantics.fusible or op in pinned or not isinstance(op, TileOp) \
                or op.latency is not None:
            return None
        rule = self.route(op)
        unit = self.target.units.get(rule.unit) if rule is not None else None
        if unit is None or unit.fusion is None:
            return None
        return (rule.unit, semantics.domain, semantics.valid)

    def node(self, op: Operation, domains: dict, index: dict) -> FusionNode:
        domain = domains[op]
        rule = self.route(op)
        if domain is None:
            known = rule is not None and rule.unit in self.target.units
            return FusionNode(False, name=op.name, unit=rule.unit if known else None,
                              inline=known and self.target.units[rule.unit].kind == "inline",
                              cycles=op_cycles(op, self.target, rule) if known else 0)
        unit = self.target.units[rule.unit]
        model = unit.fusion
        bandwidth = self.target.bandwidth(rule)
        memrefs = self.flow.memrefs[op]
        terms = self.target.fused_terms(op.name, rule, [self.shape(value) for value in memrefs])

        flow = self.flow
        reads = []
        for slot, (ub, reg) in enumerate(terms.streams[:-1]):
            producer = flow.producer.get((op, slot))
            same = producer in index and domains.get(producer) == domain
            reads.append(Stream(ub, reg, index[producer] if same else None))
        readers = flow.readers.get(op, [])
        partners = all(r in index and domains.get(r) == domain for r in readers)
        stays = bool(readers) and partners and op not in flow.read_elsewhere \
            and not self.facts.escapes.get(op, True)
        keys = [self.tile_key(value) for value in memrefs]
        return FusionNode(
            fusible=True, domain=domain,
            head_fixed=terms.head_fixed, member_fixed=terms.member_fixed, factor=terms.factor,
            reads=tuple(reads), write=Stream(*terms.streams[-1]),
            readers=tuple(sorted({index[r] for r in readers})) if partners else (),
            write_may_stay=stays, tiles=tuple(dict.fromkeys(keys)),
            spill=model.spill_cycles(self.semantics[op].elements, bandwidth),
            live_tiles=model.live_tiles, name=op.name, unit=rule.unit,
            inline=unit.kind == "inline")


class _Dataflow:
    """Producers and readers of tiles along a block (see the module docstring)."""

    def __init__(self, ops: list[Operation], region=root_region):
        self.producer: dict[tuple[Operation, int], Operation] = {}
        self.readers: dict[Operation, list[Operation]] = {}
        self.read_elsewhere: set[Operation] = set()
        self.memrefs: dict[Operation, list] = {}  # memref operands of each tile op
        self.current: dict[object, list[tuple[Region, Operation]]] = {}
        self.region = region
        for op in ops:
            self.visit(op)

    def visit(self, op: Operation) -> None:
        if _plain_tile_op(type(op)):
            memrefs = self.memrefs[op] = [v for v in op.operands if type(v.type) is MemRefType
                                          or isinstance(v.type, MemRefType)]
            read_list = memrefs[:-1] if _reads_all_but_last(type(op)) else op.read_operands()
            reads = memrefs[:-1] if read_list else []
            for slot, value in enumerate(reads):
                self.read(op, slot, self.region(value))
            if len(read_list) > len(reads):  # matmul {accumulate} reads its output
                self.read(op, -1, self.region(memrefs[-1]))
            self.write(op, self.region(memrefs[-1]), not is_partial(memrefs[-1]))
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

    def write(self, op: Operation, region: Region, whole: bool = True) -> None:
        """``op`` writes ``region`` (``whole``: every element of it; a write through a valid
        region may not, so the earlier writers of the region stay visible to later reads)."""
        entries = [(r, w) for r, w in self.current.get(region.root, []) if r != region or not whole]
        self.current[region.root] = [*entries, (region, op)]


@cache
def _plain_tile_op(cls: type) -> bool:
    """A tile op other than ``tile.call`` (once per class: ``isinstance`` on op classes is slow)."""
    return issubclass(cls, TileOp) and not issubclass(cls, CallOp)


@cache
def _reads_all_but_last(cls: type) -> bool:
    """Does the class keep ``TileOp.read_operands`` (every memref operand but the last)?"""
    return cls.read_operands is TileOp.read_operands


def _carried(loop: scf.ForOp, nodes: list[Operation]) -> list[tuple[int, int, int]]:
    """Loop-carried dependences of ``loop`` between ``nodes``: (producer, consumer, distance)."""
    body = list(loop.body.block.ops)
    index = {op: k for k, op in enumerate(nodes)}
    found = set()
    for dep in loop_carried_dependences(loop):
        src, dst = index.get(body[dep.src]), index.get(body[dep.dst])
        if src is not None and dst is not None:
            found.add((src, dst, dep.distance))
    return sorted(found)
