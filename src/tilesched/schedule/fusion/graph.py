"""The graph fusion planning works on: one barrier-free segment of a block, without the IR.

Nodes are the segment's ops that have effects, in program order ``0..n-1`` (pure ops, index math
and views, are left out: nothing depends on them through memory and they never block a move).
A node is *fusible* when the op-semantics table calls it vector compute with a static iteration
domain and its unit models fused execution; other nodes are never fused but constrain the order.

``edges`` are every dependence the analysis knows between nodes (read/write conflicts of any
kind); they point forward in program order. ``dataflow`` are the candidate fusion edges: a
fusible node reads exactly the tile another fusible node of the same domain wrote, and that write
is the one the read sees (a *direct dataflow edge*, seed 002's DFG edge).

Costs are cycles of the unit's fused-execution model (:mod:`tilesched.schedule.fusion.cost`):
each operand is a :class:`Stream` with its cycles through the local buffer and in registers.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from tilesched.target.model import fused_op_time


@dataclass(frozen=True)
class Stream:
    """One operand of a node: cycles through the local buffer (``ub``) or in registers
    (``reg``). For a read, ``producer`` is the node whose write of exactly this tile the read
    sees (None: written before the segment, or only partly by one node)."""

    ub: int
    reg: int
    producer: int | None = None


@dataclass
class FusionNode:
    """One op of a segment (see the module docstring)."""

    fusible: bool
    domain: Hashable | None = None
    head_fixed: int = 0          # startup when the op runs alone or first in a span
    member_fixed: int = 0        # startup of a later op of a span
    factor: float = 1.0          # the op's cost factor on its unit (exp, div)
    reads: tuple[Stream, ...] = ()
    write: Stream | None = None
    readers: tuple[int, ...] = ()  # nodes reading exactly the written tile, seeing this write
    write_may_stay: bool = False   # no other reader, and the tile is dead after the block
    tiles: tuple[Hashable, ...] = ()  # distinct tiles the op touches
    spill: int = 0               # cycles per tile beyond ``live_tiles`` live at once in its span
    live_tiles: int = 1 << 30
    name: str = ""
    unit: str | None = None      # the unit that runs the op (None: no unit, e.g. a dealloc)
    inline: bool = False         # the unit runs on the issuer
    cycles: int = 0              # duration of a node that is not fusible

    def alone(self) -> int:
        """Cycles of the op outside any span (every operand through the local buffer)."""
        streams = [s.ub for s in self.reads] + ([self.write.ub] if self.write else [])
        return fused_op_time(self.head_fixed, self.factor, streams)


@dataclass
class FusionGraph:
    """One segment: nodes in program order, dependences, candidate fusion edges."""

    nodes: list[FusionNode]
    edges: list[tuple[int, int]] = field(default_factory=list)
    dataflow: list[tuple[int, int]] = field(default_factory=list)
    # a loop body that is one segment: dependences to later iterations (producer, consumer,
    # distance) and the trips the block-level estimate replays (None: straight-line code)
    carried: list[tuple[int, int, int]] | None = None
    trips: int = 1

    def __post_init__(self) -> None:
        n = len(self.nodes)
        self.succs: list[list[int]] = [[] for _ in range(n)]
        self.preds: list[list[int]] = [[] for _ in range(n)]
        for i, j in sorted(set(self.edges)):
            if not 0 <= i < j < n:
                raise ValueError(f"edge {i}->{j} does not point forward in a {n}-node segment")
            self.succs[i].append(j)
            self.preds[j].append(i)
        for i, j in self.dataflow:
            if not (self.nodes[i].fusible and self.nodes[j].fusible
                    and self.nodes[i].domain == self.nodes[j].domain):
                raise ValueError(f"dataflow edge {i}->{j} joins nodes that cannot share a span")

    def __len__(self) -> int:
        return len(self.nodes)
