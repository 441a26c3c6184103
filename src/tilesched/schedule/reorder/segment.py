"""The graph ``reorder-events`` schedules: the children of one block, without the IR.

Nodes are a block's ops in their original order ``0..n-1``. Each has a unit (``None`` for
index math, views, allocations: *free* nodes), whether it runs inline on the issuer, a
duration in cycles, and whether it is a *control* node (``scf.for`` / ``scf.if``: an
immovable black box whose effects are the conservative summary of its body). A control node
whose body runs on several units is a *boundary*: insert-sync synchronizes its body on its
own and fences it with ``barrier_all``, so the flag planner starts afresh after it.

Edges always point forward in the original order: ``deps`` are memory dependences (RAW,
WAR, WAW, unknown effects), which decide the synchronization; ``order`` edges only constrain
the order (SSA def-use, the stability chain of control nodes, hard barriers). For a loop
body, ``carried`` lists the loop-carried dependences ``(producer, consumer, distance)``
(consumer in a later iteration) that insert-sync turns into back-edge flags.

Why a graph type of its own, not the modulo graph: the cost of an order here is decided by the
flags insert-sync will plan, so a node carries its unit and kind (free, inline, control,
boundary) and the edges are split into flag-deciding dependences and order-only edges; there
are no resource footprints, latencies or iteration distances to carry (one block, one pass).

Nothing here assumes a node is a single op: a span that must stay whole (a fusion group, the
Fusion contract of DESIGN.md) can be one node with its unit and summed duration, its ops'
dependences mapped onto it; the pass then moves the span's ops together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.flags import Item


@dataclass
class Segment:
    """A block's children as a scheduling graph (see the module docstring)."""

    units: list[str | None]
    durations: list[int]
    inline: list[bool] = field(default_factory=list)
    control: list[bool] = field(default_factory=list)
    boundary: list[bool] = field(default_factory=list)
    deps: list[tuple[int, int]] = field(default_factory=list)
    order: list[tuple[int, int]] = field(default_factory=list)
    carried: list[tuple[int, int, int]] | None = None
    trips: int = 1

    def __post_init__(self) -> None:
        n = len(self.units)
        for name in ("inline", "control", "boundary"):
            if not getattr(self, name):
                setattr(self, name, [False] * n)
        self.preds: list[list[int]] = [[] for _ in range(n)]
        self.succs: list[list[int]] = [[] for _ in range(n)]
        self.dep_preds: list[list[int]] = [[] for _ in range(n)]
        self.dep_succs: list[list[int]] = [[] for _ in range(n)]
        deps = _sorted_unique(self.deps)
        for i, j in deps:
            self.dep_preds[j].append(i)
            self.dep_succs[i].append(j)
        for i, j in _sorted_unique(deps + self.order if self.order else deps):
            if not 0 <= i < j < n:
                raise ValueError(f"edge {i}->{j} does not point forward in a {n}-node segment")
            self.preds[j].append(i)
            self.succs[i].append(j)
        self.consumers = [self.consumer_units(i) for i in range(n)]
        self.items = [self.item(i) for i in range(n)]

    def __len__(self) -> int:
        return len(self.units)

    def item(self, i: int) -> Item:
        """What the flag planner sees of node ``i`` (a boundary is planned around, not with)."""
        if self.boundary[i]:
            return Item(None)
        return Item(self.units[i], self.inline[i])

    def is_free(self, i: int) -> bool:
        """A node on no unit that is not a control node: index math, views, allocations."""
        return self.units[i] is None and not self.control[i]

    def consumer_units(self, i: int) -> tuple[str, ...]:
        """Queued units of the nodes that depend on ``i`` through memory (flags may link them)."""
        units = {self.units[j] for j in self.dep_succs[i]
                 if self.units[j] is not None and not self.inline[j] and not self.boundary[j]}
        return tuple(sorted(units))

    def is_topological(self, order: list[int]) -> bool:
        """Is ``order`` a permutation of the nodes that keeps every edge forward?"""
        if sorted(order) != list(range(len(self))):
            return False
        position = {node: k for k, node in enumerate(order)}
        return all(position[i] < position[j] for j in range(len(self)) for i in self.preds[j])


def _sorted_unique(edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``sorted(set(edges))`` (edges usually come sorted: then one linear check; a few
    sorted runs, as the dependences followed by the order edges, merge in linear time)."""
    if all(a < b for a, b in zip(edges, edges[1:], strict=False)):
        return edges
    ordered = sorted(edges)
    return ordered[:1] + [b for a, b in zip(ordered, ordered[1:], strict=False) if a != b]
