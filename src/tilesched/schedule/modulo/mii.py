"""Lower bounds on the initiation interval (II) of a modulo schedule.

- **ResMII** (Rau 1994, "Iterative Modulo Scheduling", §2.2): every resource column needs
  ``ceil(uses / capacity)`` cycles per iteration, where ``uses`` counts all footprint cycles.
- **RecMII** (same, §2.3): a dependence cycle with total separation ``L`` and total distance ``D``
  forces ``II >= L / D``. For integer II, RecMII is the smallest II at which no cycle has
  ``L - II * D > 0``. We find it by galloping + binary search on II with positive-cycle detection
  (Lawler's parametric method; Dasdan, "Experimental analysis of the fastest optimum cycle ratio and
  mean algorithms", ACM TODAES 9(4), 2004), separately on each strongly connected component, so
  graphs with thousands of nodes take milliseconds: no circuit enumeration.
- **Fine-density MII** (the source document's bound for pooled capacities): a pool shared by
  several resources admits ``capacity`` uses per cycle in total, so ``II >= ceil(pool uses / pool
  capacity)``. It is 0 when the graph declares no pools (HatScheT models have none).
- **Dependency MII**: only with a stage cap ``S``. A schedule of ``S`` stages fits every start in
  ``[0, S * II)``, and a zero-distance dependence path of separation ``P`` spans ``P`` cycles, so
  ``II >= ceil((P + 1) / S)``.

``MII = max`` of these (and 1). All functions are pure and work on a
:class:`~tilesched.schedule.modulo.graph.CompiledGraph`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.modulo.graph import CompiledGraph, GraphError
from tilesched.schedule.modulo.paths import (
    longest_paths,
    strongly_connected_components,
    subgraph,
)


@dataclass(frozen=True)
class MiiBounds:
    """The lower bounds and their witnesses (column name, critical cycle as node ids)."""

    res_mii: int
    rec_mii: int
    fine_density_mii: int = 0
    dependency_mii: int = 0
    bottleneck: str | None = None
    critical_cycle: list[str] = field(default_factory=list)

    @property
    def mii(self) -> int:
        """``max(ResMII, RecMII, fine-density MII, dependency MII, 1)``."""
        return max(self.res_mii, self.rec_mii, self.fine_density_mii, self.dependency_mii, 1)


def column_uses(cg: CompiledGraph) -> list[int]:
    """Footprint cycles per capacity column, summed over all nodes. O(total footprint)."""
    uses = [0] * len(cg.columns)
    for usage in cg.usage:
        for _offset, col in usage:
            uses[col] += 1
    return uses


def _density(cg: CompiledGraph, pools: bool) -> tuple[int, str | None]:
    """Max over resource (or pool) columns of ``ceil(uses / capacity)``, with the arg-max."""
    best, where = 0, None
    for col, uses in enumerate(column_uses(cg)):
        if (col in cg.pool_columns) != pools or uses == 0:
            continue
        cap = cg.column_capacity[col]
        if cap == 0:
            raise GraphError(f"'{cg.columns[col]}' has capacity 0 but {uses} use(s)")
        bound = -(-uses // cap)
        if bound > best:
            best, where = bound, cg.columns[col]
    return best, where


def res_mii(cg: CompiledGraph) -> tuple[int, str | None]:
    """ResMII and the bottleneck resource. O(V + total footprint)."""
    return _density(cg, pools=False)


def fine_density_mii(cg: CompiledGraph) -> tuple[int, str | None]:
    """The pooled-capacity bound and the bottleneck pool (0, None without pools)."""
    return _density(cg, pools=True)


def has_positive_cycle(cg: CompiledGraph, ii: int) -> list[int] | None:
    """A dependence cycle with ``separation - ii * distance > 0`` (node indices), or ``None``."""
    for comp in strongly_connected_components(cg.succ):
        if len(comp) == 1 and not any(v == comp[0] for v, _, _ in cg.succ[comp[0]]):
            continue
        _, cycle = longest_paths(subgraph(cg.succ, comp), ii)
        if cycle is not None:
            return [comp[i] for i in cycle]
    return None


def rec_mii(cg: CompiledGraph) -> tuple[int, list[int]]:
    """RecMII and a critical cycle (node indices; empty if the graph has no recurrence).

    Per SCC: galloping then binary search for the least integer II without a positive cycle.
    O(log(L) * V * E) worst case per SCC, with ``L`` the SCC's total separation. Raises
    :class:`GraphError` for a positive cycle of distance 0 (no II can satisfy it).
    """
    best, witness = 0, []
    for comp in strongly_connected_components(cg.succ):
        adj = subgraph(cg.succ, comp)
        if not any(adj):
            continue
        bound, cycle = _component_rec_mii(adj, best)
        if cycle is None:
            continue
        cycle = [comp[i] for i in cycle]
        if bound is None:
            names = " -> ".join(cg.ids[v] for v in cycle)
            raise GraphError(f"dependence cycle {names} has distance 0 and positive latency")
        best, witness = bound, cycle
    return best, witness


def _component_rec_mii(adj, floor: int) -> tuple[int | None, list[int] | None]:
    """Least II > ``floor`` free of positive cycles in one SCC, with a cycle positive at II - 1.

    Returns ``(None, None)`` if ``floor`` already suffices and ``(None, cycle)`` for a zero-distance
    positive cycle.
    """
    _, cycle = longest_paths(adj, floor)
    if cycle is None:
        return None, None
    top = sum(max(sep, 0) for edges in adj for _, sep, _ in edges)
    _, zero_cycle = longest_paths(adj, top + 1)
    if zero_cycle is not None:
        return None, zero_cycle
    lo, step = floor, 1  # lo: a positive cycle exists; hi: none does
    while True:
        hi = min(lo + step, top + 1)
        _, found = longest_paths(adj, hi)
        if found is None:
            break
        lo, cycle, step = hi, found, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        _, found = longest_paths(adj, mid)
        if found is None:
            hi = mid
        else:
            lo, cycle = mid, found
    return hi, cycle


def dependency_mii(cg: CompiledGraph, max_stages: int | None) -> int:
    """``ceil((P + 1) / max_stages)`` for the longest zero-distance path ``P``; 0 without a cap."""
    if not max_stages:
        return 0
    zero = [[e for e in edges if e[2] == 0] for edges in cg.succ]
    dist, cycle = longest_paths(zero, 0)
    if cycle is not None:
        names = " -> ".join(cg.ids[v] for v in cycle)
        raise GraphError(f"dependence cycle {names} has distance 0 and positive latency")
    return -(-(max(dist, default=0) + 1) // max_stages)


def compute_bounds(cg: CompiledGraph, max_stages: int | None = None) -> MiiBounds:
    """All lower bounds of the module docstring. O(log(L) * V * E) worst case."""
    res, bottleneck = res_mii(cg)
    fine, pool = fine_density_mii(cg)
    rec, cycle = rec_mii(cg)
    dep = dependency_mii(cg, max_stages)
    if fine > res:
        bottleneck = pool
    return MiiBounds(res, rec, fine, dep, bottleneck, [cg.ids[v] for v in cycle])


@dataclass(frozen=True)
class WindowOverload:
    """A proof that an II is infeasible: relative to ``hub``, the ``count`` footprint cycles on
    ``column`` must all fall within ``[first, last]`` (fewer than II cycles, so distinct rows),
    yet the column serves only ``capacity * (last - first + 1)`` there."""

    hub: str
    column: str
    first: int
    last: int
    count: int
    capacity: int
    nodes: tuple[str, ...]

    def text(self) -> str:
        """One sentence for diagnostics."""
        span = self.last - self.first + 1
        return (f"{self.count} cycles of {self.column} must fall within cycles "
                f"[{self.first}, {self.last}] relative to {self.hub} ({span} cycles, fewer than "
                f"II), but {self.column} serves {self.capacity} per cycle")


def window_overload(
    cg: CompiledGraph, members: tuple[int, ...], dmat: list[list[int]], ii: int, hubs: int = 4
) -> WindowOverload | None:
    """Hall's condition for one recurrence group at ``ii``, or the overloaded window.

    Relative to a member ``h``, member ``j`` starts in ``[D[h][j], -D[j][h]]`` (``dmat`` from
    :func:`~tilesched.schedule.modulo.graph.group_distances`). Footprint cycles confined to a window
    shorter than II sit in distinct rows, so a column of capacity ``c`` can hold at most
    ``c * length`` of them there. This is the density argument of ResMII applied to the
    windows the recurrence imposes (an energetic-reasoning bound, cf. Baptiste, Le Pape & Nuijten,
    "Constraint-Based Scheduling", 2001, ch. 3). The ``hubs`` members whose windows are
    narrowest serve as references. O(hubs * m^2 log m) for ``m`` users of a column.
    """
    k = len(members)
    if k < 2:
        return None
    width = [sum(-dmat[j][h] - dmat[h][j] for j in range(k)) for h in range(k)]
    for h in sorted(range(k), key=lambda h: (width[h], h))[:hubs]:
        found = _hub_overload(cg, members, dmat, ii, h)
        if found is not None:
            return found
    return None


def _hub_overload(cg, members, dmat, ii, h) -> WindowOverload | None:
    """Check every window ``[x, y]`` spanned by the members' intervals relative to ``h``."""
    per_column: dict[int, list[tuple[int, int, int, int]]] = {}
    for j, v in enumerate(members):
        offsets: dict[int, list[int]] = {}
        for off, col in cg.usage[v]:
            offsets.setdefault(col, []).append(off)
        for col, offs in offsets.items():
            lo, hi = dmat[h][j] + min(offs), -dmat[j][h] + max(offs)
            per_column.setdefault(col, []).append((lo, hi, len(offs), v))
    for col, spans in per_column.items():
        cap = cg.column_capacity[col]
        if sum(s[2] for s in spans) <= cap:
            continue
        for x in sorted({s[0] for s in spans}):
            inside = sorted((s[1], s[2], s[3]) for s in spans if s[0] >= x)
            total, nodes = 0, []
            for y, count, v in inside:
                total += count
                nodes.append(v)
                if y - x + 1 < ii and total > cap * (y - x + 1):
                    return WindowOverload(cg.ids[members[h]], cg.columns[col], x, y, total, cap,
                                          tuple(cg.ids[u] for u in nodes))
    return None
