"""A small dependence graph for schedulers, independent of the IR.

Nodes are operations. Each runs on at most one *resource* (an operator type or hardware unit)
for ``occupancy`` consecutive blocking cycles and delivers its result ``latency`` cycles after it
starts. A node may instead give an explicit *footprint*: a list of ``(cycle offset, resource)``
uses, so one operation can hold several resources for different cycles (a copy that holds a DMA
queue for 4 cycles and a bank port for the first one, say). Resources have a capacity (``None``
means unlimited); *pools* are extra capacities shared by several resources (two issue ports that
feed three pipes, say): every use of a member also counts against the pool.

An edge ``u -> v`` with ``delay`` and iteration ``distance`` requires, for a modulo schedule with
initiation interval ``II``, ``t(v) + distance * II >= t(u) + latency(u) + delay`` (the HatScheT
convention, ``shared/benchmarks/hatschet/README.md``). ``latency(u) + delay`` is the edge's
*separation*; a negative delay expresses anti-dependences ("v may not start before u starts").
List schedulers use the same type with every distance 0.

:class:`ScheduleGraph` is the mutable builder; :meth:`ScheduleGraph.compiled` returns an
index-based :class:`CompiledGraph` that the algorithms in this package work on (the path
algorithms on it are in :mod:`.paths`).

Why a graph type of its own (DESIGN.md asks for one small graph type; there are three): modulo
scheduling needs resource footprints, latencies and iteration distances on edges, which the
block reorderer's :class:`~tilesched.schedule.reorder.segment.Segment` (units, and the
dependences that decide flags) and the pipeliner's ``StagedOp`` (stage and order) do not carry.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class GraphError(ValueError):
    """The graph is malformed or can never be scheduled (e.g. a zero-distance positive cycle)."""


@dataclass(frozen=True)
class Resource:
    """A resource class with ``capacity`` identical instances (``None``: unlimited)."""

    name: str
    capacity: int | None = None


@dataclass(frozen=True)
class Pool:
    """A capacity shared by the member resources: at most ``capacity`` uses per cycle in total."""

    name: str
    members: tuple[str, ...]
    capacity: int


@dataclass(frozen=True)
class Node:
    """An operation: ``footprint`` lists its ``(offset, resource)`` uses relative to its start."""

    id: str
    name: str
    resource: str | None
    latency: int
    occupancy: int
    footprint: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Edge:
    """A dependence ``src -> dst``: ``t(dst) + distance*II >= t(src) + latency(src) + delay``."""

    src: str
    dst: str
    delay: int = 0
    distance: int = 0


@dataclass
class CompiledGraph:
    """Index-based view of a :class:`ScheduleGraph` for the algorithms (nodes are ``0..n-1``).

    ``columns`` are the capacity-limited resources followed by the pools; ``usage[v]`` lists
    ``(offset, column)`` for every capacity node ``v`` consumes, so a reservation table only needs
    ``column_capacity``. ``succ[u]`` / ``pred[v]`` hold ``(other, separation, distance)``.
    """

    ids: list[str]
    latency: list[int]
    succ: list[list[tuple[int, int, int]]]
    pred: list[list[tuple[int, int, int]]]
    edges: list[tuple[int, int, int, int]]
    usage: list[tuple[tuple[int, int], ...]]
    columns: list[str]
    column_capacity: list[int]
    pool_columns: frozenset[int]

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.ids)


@dataclass
class ScheduleGraph:
    """Builder for a dependence graph with resources (see the module docstring)."""

    resources: dict[str, Resource] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    _compiled: CompiledGraph | None = field(default=None, repr=False, compare=False)

    def add_resource(self, name: str, capacity: int | None = None) -> Resource:
        """Declare resource ``name`` with ``capacity`` instances (``None``: unlimited)."""
        if capacity is not None and capacity < 0:
            raise GraphError(f"resource '{name}' has negative capacity {capacity}")
        res = Resource(name, capacity)
        self.resources[name] = res
        self._compiled = None
        return res

    def add_pool(self, name: str, members: list[str] | tuple[str, ...], capacity: int) -> Pool:
        """Declare a capacity of ``capacity`` uses per cycle shared by ``members``."""
        for member in members:
            if member not in self.resources:
                raise GraphError(f"pool '{name}' names unknown resource '{member}'")
        if capacity < 0:
            raise GraphError(f"pool '{name}' has negative capacity {capacity}")
        pool = Pool(name, tuple(members), capacity)
        self.pools[name] = pool
        self._compiled = None
        return pool

    def add_node(
        self,
        id: str,
        resource: str | None = None,
        *,
        latency: int = 0,
        occupancy: int = 1,
        name: str | None = None,
        footprint: list[tuple[int, str]] | None = None,
    ) -> Node:
        """Add an operation; without ``footprint`` it holds ``resource`` for ``occupancy`` cycles."""
        if id in self.nodes:
            raise GraphError(f"duplicate node id '{id}'")
        if latency < 0 or occupancy < 0:
            raise GraphError(f"node '{id}' has a negative latency or occupancy")
        if footprint is None:
            footprint = [(k, resource) for k in range(occupancy)] if resource is not None else []
        for offset, res in footprint:
            if res not in self.resources:
                raise GraphError(f"node '{id}' uses unknown resource '{res}'")
            if offset < 0:
                raise GraphError(f"node '{id}' has a negative footprint offset {offset}")
        node = Node(id, name or id, resource, latency, occupancy, tuple(footprint))
        self.nodes[id] = node
        self._compiled = None
        return node

    def add_edge(self, src: str, dst: str, *, delay: int = 0, distance: int = 0) -> Edge:
        """Add the dependence ``src -> dst`` (see :class:`Edge`)."""
        for end in (src, dst):
            if end not in self.nodes:
                raise GraphError(f"edge {src} -> {dst} names unknown node '{end}'")
        if distance < 0:
            raise GraphError(f"edge {src} -> {dst} has negative distance {distance}")
        edge = Edge(src, dst, delay, distance)
        self.edges.append(edge)
        self._compiled = None
        return edge

    def separation(self, edge: Edge) -> int:
        """Cycles ``edge.dst`` must start after ``edge.src`` in the same iteration."""
        return self.nodes[edge.src].latency + edge.delay

    def compiled(self) -> CompiledGraph:
        """Return (and cache) the index-based form. O(V + E + footprint sizes)."""
        if self._compiled is None:
            self._compiled = _compile(self)
        return self._compiled


def _compile(graph: ScheduleGraph) -> CompiledGraph:
    """Number nodes in insertion order and resources as capacity columns."""
    ids = list(graph.nodes)
    index = {node_id: i for i, node_id in enumerate(ids)}
    limited = [r for r in graph.resources.values() if r.capacity is not None]
    columns = [r.name for r in limited] + [p.name for p in graph.pools.values()]
    capacity = [r.capacity for r in limited] + [p.capacity for p in graph.pools.values()]
    column_of = {r.name: i for i, r in enumerate(limited)}
    pools_of: dict[str, list[int]] = {}
    for j, pool in enumerate(graph.pools.values()):
        for member in pool.members:
            pools_of.setdefault(member, []).append(len(limited) + j)
    succ: list[list[tuple[int, int, int]]] = [[] for _ in ids]
    pred: list[list[tuple[int, int, int]]] = [[] for _ in ids]
    edges = []
    for edge in graph.edges:
        u, v, sep = index[edge.src], index[edge.dst], graph.separation(edge)
        succ[u].append((v, sep, edge.distance))
        pred[v].append((u, sep, edge.distance))
        edges.append((u, v, sep, edge.distance))
    usage = []
    for node_id in ids:
        uses = []
        for offset, res in graph.nodes[node_id].footprint:
            if res in column_of:
                uses.append((offset, column_of[res]))
            uses.extend((offset, col) for col in pools_of.get(res, ()))
        usage.append(tuple(sorted(uses)))
    return CompiledGraph(
        ids=ids,
        latency=[graph.nodes[i].latency for i in ids],
        succ=succ,
        pred=pred,
        edges=edges,
        usage=usage,
        columns=columns,
        column_capacity=capacity,
        pool_columns=frozenset(range(len(limited), len(columns))),
    )
