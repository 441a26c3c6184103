"""The independent validity checker finds every kind of violation."""

from __future__ import annotations

from graphs import make_graph

from tilesched.schedule.modulo.validate import check_modulo_schedule


def _graph():
    return make_graph({"R": 1, "free": None},
                      [("a", "R", 2, 2), ("b", "R", 1, 1), ("c", "free", 0, 0)],
                      [("a", "b", 1, 0), ("b", "a", 0, 1)])


def test_valid_schedule():
    assert check_modulo_schedule(_graph(), 4, {"a": 0, "b": 3, "c": 0}) == []


def test_dependence_violation():
    (v,) = check_modulo_schedule(_graph(), 4, {"a": 0, "b": 2, "c": 0})
    assert v.kind == "dependence" and "a -> b" in v.detail


def test_resource_violation_counts_blocking_cycles():
    g = make_graph({"R": 1}, [("a", "R", 2, 2), ("b", "R", 1, 1)], [("a", "b", 1, 0)])
    found = check_modulo_schedule(g, 5, {"a": 0, "b": 6})  # b's row 1 is a's second cycle
    assert [v.kind for v in found] == ["resource"]
    assert check_modulo_schedule(g, 5, {"a": 0, "b": 7}) == []


def test_missing_or_negative_starts_and_bad_ii():
    assert check_modulo_schedule(_graph(), 4, {"a": 0, "b": 3})[0].kind == "start"
    assert check_modulo_schedule(_graph(), 4, {"a": -1, "b": 3, "c": 0})[0].kind == "start"
    assert check_modulo_schedule(_graph(), 0, {"a": 0, "b": 3, "c": 0})[0].kind == "start"


def test_pools_are_checked():
    g = make_graph({"A": 1, "B": 1}, [("x", "A", 1, 1), ("y", "B", 1, 1)], [],
                   pools=[("P", ["A", "B"], 1)])
    assert check_modulo_schedule(g, 2, {"x": 0, "y": 1}) == []
    assert [v.kind for v in check_modulo_schedule(g, 2, {"x": 0, "y": 2})] == ["resource"]
