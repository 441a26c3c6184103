"""Shared helpers for the modulo scheduling tests: hand-built graphs."""

from __future__ import annotations

from tilesched.schedule.modulo.graph import ScheduleGraph


def make_graph(resources, nodes, edges, pools=()):
    """``resources``: {name: capacity or None}; ``nodes``: (id, resource, latency, occupancy);
    ``edges``: (src, dst, delay, distance); ``pools``: (name, members, capacity)."""
    graph = ScheduleGraph()
    for name, cap in resources.items():
        graph.add_resource(name, cap)
    for name, members, cap in pools:
        graph.add_pool(name, members, cap)
    for node_id, res, latency, occupancy in nodes:
        graph.add_node(node_id, res, latency=latency, occupancy=occupancy)
    for src, dst, delay, distance in edges:
        graph.add_edge(src, dst, delay=delay, distance=distance)
    return graph


def three_in_one_slot():
    """Three ops on a capacity-2 resource that a recurrence forces into one row at II 2.

    a -> b -> c (separation 0) and c -> a (separation 2, distance 1): at II 2 the cycle has no
    slack, so t(a) = t(b) = t(c). ResMII = RecMII = 2, yet the optimum is 3.
    """
    return make_graph(
        {"R": 2},
        [("a", "R", 0, 1), ("b", "R", 0, 1), ("c", "R", 0, 1)],
        [("a", "b", 0, 0), ("b", "c", 0, 0), ("c", "a", 2, 1)],
    )
