"""The graph type: building and compiling."""

from __future__ import annotations

import pytest
from graphs import make_graph

from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph


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
