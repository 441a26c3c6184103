"""Independent validity check of a modulo schedule.

Written straight from the problem definition in ``shared/benchmarks/hatschet/README.md``,
sharing no code with the scheduler (it reads the :class:`ScheduleGraph` builder's fields, not
the compiled form):

- every start time is an integer ``>= 0`` and every node has one;
- dependences: for each edge ``u -> v``, ``t(v) + distance * II >= t(u) + latency(u) + delay``;
- resources: for each resource with a capacity (and each pool), in every modulo slot ``s`` the
  number of footprint cycles ``(v, k)`` with ``(t(v) + k) mod II == s`` is at most the capacity.

O(V + E + total footprint + II * resources).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tilesched.schedule.modulo.graph import ScheduleGraph


@dataclass(frozen=True)
class Violation:
    """One broken constraint: ``kind`` is ``start``, ``dependence`` or ``resource``."""

    kind: str
    detail: str


def check_modulo_schedule(
    graph: ScheduleGraph, ii: int, starts: dict[str, int]
) -> list[Violation]:
    """All violations of the schedule ``starts`` at ``ii`` (empty list: valid)."""
    if not isinstance(ii, int) or ii < 1:
        return [Violation("start", f"initiation interval {ii!r} is not a positive integer")]
    found = _check_starts(graph, starts)
    if found:
        return found
    for edge in graph.edges:
        need = starts[edge.src] + graph.nodes[edge.src].latency + edge.delay
        have = starts[edge.dst] + edge.distance * ii
        if have < need:
            found.append(Violation(
                "dependence",
                f"{edge.src} -> {edge.dst} (distance {edge.distance}): "
                f"t({edge.dst}) + {edge.distance}*{ii} = {have} < {need}",
            ))
    found.extend(_check_resources(graph, ii, starts))
    return found


def _check_starts(graph: ScheduleGraph, starts: dict[str, int]) -> list[Violation]:
    """Every node has an integer start >= 0."""
    found = []
    for node_id in graph.nodes:
        t = starts.get(node_id)
        if not isinstance(t, int) or isinstance(t, bool) or t < 0:
            found.append(Violation("start", f"node {node_id} has start {t!r}"))
    return found


def _check_resources(graph: ScheduleGraph, ii: int, starts: dict[str, int]) -> list[Violation]:
    """Count footprint cycles per (capacity, slot) and compare with the capacities."""
    limits: dict[str, int] = {
        name: res.capacity for name, res in graph.resources.items() if res.capacity is not None
    }
    members: dict[str, list[str]] = defaultdict(list)
    for pool in graph.pools.values():
        limits[f"pool {pool.name}"] = pool.capacity
        for member in pool.members:
            members[member].append(f"pool {pool.name}")
    used: dict[tuple[str, int], int] = defaultdict(int)
    for node_id, node in graph.nodes.items():
        for offset, res in node.footprint:
            slot = (starts[node_id] + offset) % ii
            for name in [res, *members[res]]:
                if name in limits:
                    used[name, slot] += 1
    return [
        Violation("resource", f"{name} slot {slot}: {count} uses > capacity {limits[name]}")
        for (name, slot), count in sorted(used.items())
        if count > limits[name]
    ]
