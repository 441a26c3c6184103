"""The HatScheT loader: both delay keys, declared GraphML keys, and located errors."""

from __future__ import annotations

import pathlib

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.schedule.modulo.hatschet import default_resource_path, load_graph

INPUTS = pathlib.Path(__file__).parent / "Inputs"
RM = (INPUTS / "small_RM.xml").read_text()
GRAPH = (INPUTS / "small.graphml").read_text()


def _write(tmp_path, graph=GRAPH, rm=RM, name="graph1"):
    (tmp_path / f"{name}.graphml").write_text(graph)
    (tmp_path / f"{name}_RM.xml").write_text(rm)
    return tmp_path / f"{name}.graphml"


def test_loads_nodes_resources_and_both_delay_keys(tmp_path):
    g = load_graph(_write(tmp_path))
    assert g.resources["mul"].capacity == 1 and g.resources["wire"].capacity is None
    assert g.nodes["1"].name == "m1" and g.nodes["1"].latency == 3
    assert g.nodes["1"].footprint == ((0, "mul"), (1, "mul"))
    assert g.nodes["2"].footprint == ()
    assert [(e.src, e.dst, e.delay, e.distance) for e in g.edges] == [
        ("1", "2", 1, 0), ("2", "1", 0, 2)]
    assert g.separation(g.edges[0]) == 4


def test_declared_keys_are_resolved(tmp_path):
    graph = GRAPH.replace('key="delay"', 'key="d0"').replace(
        "<graph>", '<key id="d0" for="edge" attr.name="delay"/><graph>')
    g = load_graph(_write(tmp_path, graph))
    assert g.edges[0].delay == 1


def test_default_resource_path():
    assert default_resource_path("x/graph3.graphml").name == "graph3_RM.xml"


def test_explicit_resource_file(tmp_path):
    path = _write(tmp_path)
    other = tmp_path / "other.xml"
    other.write_text(RM.replace('limit="1"', 'limit="4"'))
    assert load_graph(path, other).resources["mul"].capacity == 4


@pytest.mark.parametrize("graph, rm, message", [
    (GRAPH.replace("</graph>", "<graph>"), RM, r"graph1.graphml:\d+:\d+: error: malformed XML"),
    (GRAPH.replace(">mul<", ">div<"), RM, r"graph1.graphml:3:\d+: error: node '1' uses resource "
                                          r"'div'"),
    (GRAPH.replace('target="2"', 'target="9"'), RM, r"graph1.graphml:5:\d+: .*unknown node '9'"),
    (GRAPH.replace('"distance">0<', '"distance">x<'), RM, r":5:\d+: error: 'distance' must be an "
                                                          "integer"),
    (GRAPH.replace('<data key="distance">0</data>', ""), RM, r":5:\d+: error: .*no 'distance'"),
    (GRAPH.replace('<data key="uses_resource">wire</data>', ""), RM, r":4:\d+: .*uses_resource"),
    (GRAPH, RM.replace('limit="1"', 'limit="-5"'), r"graph1_RM.xml:2:\d+: error: 'limit' must be "
                                                   r"between -1 and"),
    (GRAPH, RM.replace('latency="3"', 'latency="x"'), r"graph1_RM.xml:2:\d+: .*'latency'"),
    ("<html/>", RM, r"graph1.graphml: error: not a GraphML file"),
])
def test_bad_input_is_a_located_error(tmp_path, graph, rm, message):
    with pytest.raises(TileschedError, match=message):
        load_graph(_write(tmp_path, graph, rm))


def test_missing_files_name_the_file(tmp_path):
    with pytest.raises(TileschedError, match="cannot read .*nope.graphml"):
        load_graph(tmp_path / "nope.graphml")
    (tmp_path / "g.graphml").write_text(GRAPH)
    with pytest.raises(TileschedError, match="cannot read .*g_RM.xml"):
        load_graph(tmp_path / "g.graphml")


# ----------------------------------------------------------------- hostile input (issue 11 §1)

def _nested(depth: int) -> str:
    return ("<graphml>" + "<a>" * depth + "</a>" * depth + "<graph></graph></graphml>")


LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<graphml><graph><node id="1"><data key="uses_resource">&lol9;</data></node></graph></graphml>
"""


@pytest.mark.parametrize("graph, rm, message", [
    (_nested(100_000), RM, r"graph1.graphml:1:\d+: error: elements nested deeper than 64"),
    (LAUGHS, RM, r"graph1.graphml:2:\d+: error: document type declarations \(DTDs\) are not"),
    (GRAPH, '<!DOCTYPE x [<!ENTITY e "1">]>' + RM, r"graph1_RM.xml:1:\d+: error: document type"),
    (GRAPH.replace('"delay">1<', '"delay">1e300<'), RM,
     r":5:\d+: error: 'delay' must be between -1000000 and 1000000, got '1e300'"),
    (GRAPH.replace('"delay">1<', '"delay">' + "9" * 300 + "<"), RM,
     r":5:\d+: error: 'delay' must be between -1000000 and 1000000, got '9999"),
    (GRAPH.replace('"distance">0<', '"distance">nan<'), RM,
     r":5:\d+: error: 'distance' must be a finite integer, got 'nan'"),
    (GRAPH.replace('"distance">0<', '"distance">-inf<'), RM,
     r":5:\d+: error: 'distance' must be a finite integer, got '-inf'"),
    (GRAPH, RM.replace('latency="3"', 'latency="1e300"'), r"graph1_RM.xml:2:\d+: error: 'latency'"),
    (GRAPH, RM.replace('blockingTime="2"', 'blockingTime="100000000"'),
     r"graph1_RM.xml:2:\d+: error: 'blockingTime' must be between 0 and 10000"),
])
def test_hostile_input_is_refused_with_a_location(tmp_path, graph, rm, message):
    with pytest.raises(TileschedError, match=message):
        load_graph(_write(tmp_path, graph, rm))

