"""The graph type: building, compiling, SCCs, longest paths and positive cycles."""

from __future__ import annotations

import pytest
from graphs import make_graph

from tilesched.schedule.modulo.graph import (
    GraphError,
    ScheduleGraph,
    group_distances,
    longest_paths,
    recurrence_groups,
    strongly_connected_components,
)


def test_separation_is_source_latency_plus_delay():
    g = make_graph({"R": 1}, [("a", "R", 3, 1), ("b", "R", 1, 1)], [("a", "b", 2, 0)])
    assert g.separation(g.edges[0]) == 5
    assert g.compiled().succ[0] == [(1, 5, 0)]


def test_builder_rejects_malformed_input():
    g = ScheduleGraph()
    g.add_resource("R", 1)
    g.add_node("a", "R")
    with pytest.raises(GraphError, match="duplicate"):
        g.add_node("a", "R")
    with pytest.raises(GraphError, match="unknown resource"):
        g.add_node("b", "S")
    with pytest.raises(GraphError, match="unknown node"):
        g.add_edge("a", "zz")
    with pytest.raises(GraphError, match="negative distance"):
        g.add_edge("a", "a", distance=-1)
    with pytest.raises(GraphError, match="negative capacity"):
        g.add_resource("S", -2)


def test_footprint_columns_include_pools_and_skip_unlimited():
    g = ScheduleGraph()
    g.add_resource("A", 1)
    g.add_resource("B", None)
    g.add_pool("P", ["A", "B"], 1)
    g.add_node("x", "A", occupancy=2)
    g.add_node("y", "B", occupancy=1)
    g.add_node("z", None)
    cg = g.compiled()
    assert cg.columns == ["A", "P"]
    assert cg.usage == [((0, 0), (0, 1), (1, 0), (1, 1)), ((0, 1),), ()]
    assert cg.pool_columns == frozenset({1})


def test_explicit_footprint_spans_several_resources():
    g = ScheduleGraph()
    g.add_resource("dma", 1)
    g.add_resource("port", 2)
    g.add_node("copy", "dma", footprint=[(0, "dma"), (1, "dma"), (0, "port")])
    assert g.compiled().usage[0] == ((0, 0), (0, 1), (1, 0))


def test_scc_order_and_members():
    adj = [[(1, 0, 0)], [(2, 0, 0)], [(1, 0, 1), (3, 0, 0)], []]
    comps = strongly_connected_components(adj)
    assert comps == [[3], [1, 2], [0]]  # sinks first


def test_longest_paths_and_positive_cycle():
    adj = [[(1, 3, 0)], [(0, -1, 1)]]  # cycle latency 2, distance 1
    dist, cycle = longest_paths(adj, 2)
    assert cycle is None and dist == [0, 3]
    _, cycle = longest_paths(adj, 1)
    assert sorted(cycle) == [0, 1]


def test_group_distances_are_path_closed():
    g = make_graph(
        {"R": 1, "free": None},
        [("a", "R", 1, 1), ("m", "free", 0, 0), ("b", "R", 1, 1)],
        [("a", "m", 0, 0), ("m", "b", 2, 0), ("b", "a", 0, 1)],
    )
    cg = g.compiled()
    (group,) = recurrence_groups(cg)
    assert group.members == (0, 2) and group.bounded
    d = group_distances(group, 5)
    assert d[0][1] == 3  # a -> m -> b: 1 + 2
    assert d[1][0] == 1 - 5  # b -> a across one iteration
