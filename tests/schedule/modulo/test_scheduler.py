"""The heuristic modulo scheduler on hand-built loops: optimum, validity, diagnostics, API."""

from __future__ import annotations

import pytest
from graphs import make_graph, three_in_one_slot

from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph
from tilesched.schedule.modulo.scheduler import (
    ARMS,
    IMS,
    UNCONSTRAINED,
    ExactPolicy,
    modulo_schedule,
)
from tilesched.schedule.modulo.validate import check_modulo_schedule


def _valid(graph, result):
    assert result.ii is not None
    assert check_modulo_schedule(graph, result.ii, result.starts) == []


def test_chain_reaches_res_mii():
    g = make_graph({"M": 1, "V": 2},
                   [("ld", "M", 2, 1), ("mul", "V", 3, 1), ("add", "V", 1, 1), ("st", "M", 1, 1)],
                   [("ld", "mul", 0, 0), ("mul", "add", 0, 0), ("add", "st", 0, 0)])
    r = modulo_schedule(g)
    _valid(g, r)
    assert (r.ii, r.mii, r.bounds.res_mii) == (2, 2, 2)
    # ASAP except the store, whose ASAP row 0 is the load's: one cycle later
    assert r.starts == {"ld": 0, "mul": 2, "add": 5, "st": 7}
    assert r.stages == 4 and r.length == 8
    assert r.stage_of["st"] == 3
    assert r.kernel_order == {"ld": 0, "mul": 1, "add": 2, "st": 3}  # rows 0, 0, 1, 1


def test_recurrence_forcing_ii_above_mii_is_scheduled_at_the_optimum():
    g = three_in_one_slot()
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.mii == 2 and r.ii == 3  # never reported at MII
    assert r.lower_bound == 3  # II 2 is proved infeasible, not merely missed
    (attempt,) = [a for a in r.attempts if a.ii == 2]
    assert attempt.proven and "R" in attempt.failure.text()


def test_multi_cycle_occupancies():
    # two 3-cycle ops on one unit plus a recurrence: ResMII 6
    g = make_graph({"dma": 1, "vec": 1},
                   [("a", "dma", 4, 3), ("b", "dma", 4, 3), ("c", "vec", 2, 2)],
                   [("a", "c", 0, 0), ("c", "b", 0, 0), ("b", "a", 0, 1)])
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.bounds.res_mii == 6 and r.bounds.rec_mii == 10 and r.ii == 10


def test_long_single_ops_are_wound_without_gaps():
    # 11 ops of 13 blocking cycles on 4 units: 143 cycles fit II 36 only when packed end to end
    g = make_graph({"mul": 4, "free": None},
                   [(f"m{i}", "mul", 14, 13) for i in range(11)] + [("x", "free", 1, 1)],
                   [(f"m{i}", "x", i % 3, 0) for i in range(11)])
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.bounds.res_mii == 36 and r.ii == 36


def test_occupancy_longer_than_ii_wraps():
    g = make_graph({"U": 2}, [("a", "U", 5, 5)], [("a", "a", 0, 1)])
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.ii == 5  # RecMII 5; ResMII ceil(5 / 2) = 3


def test_pools_raise_the_bound_and_are_respected():
    g = make_graph({"A": 2, "B": 2}, [(f"a{i}", "A", 1, 1) for i in range(3)]
                   + [(f"b{i}", "B", 1, 1) for i in range(3)], [],
                   pools=[("issue", ["A", "B"], 2)])
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.bounds.fine_density_mii == 3 and r.ii == 3


def test_footprint_overlapping_itself_skips_that_ii():
    g = ScheduleGraph()
    g.add_resource("U", 1)
    g.add_node("x", "U", latency=1, footprint=[(0, "U"), (3, "U")])
    g.add_node("y", "U", latency=1, footprint=[(0, "U")])
    r = modulo_schedule(g)
    _valid(g, r)
    assert r.mii == 3 and r.ii == 4  # at II 3 the two cycles of x share a row
    assert r.attempts[0].proven and "overlaps itself" in r.attempts[0].failure.text()


def test_arms_are_recorded():
    g = three_in_one_slot()
    g.add_resource("free", None)
    g.add_node("w", "free")
    r = modulo_schedule(g)
    assert r.arms["w"] == UNCONSTRAINED
    assert {r.arms[v] for v in "abc"} <= set(ARMS) | {IMS}


def test_diagnostics_when_the_cap_is_too_small():
    g = three_in_one_slot()
    r = modulo_schedule(g, max_ii=2)
    assert r.ii is None and r.starts == {}
    (failure,) = r.failures
    assert failure.ii == 2 and failure.refused_by == "R" and not failure.refused_by_pool
    assert "3 cycles of R" in failure.text()


def test_failure_names_rows_occupants_and_window():
    # four ops on a capacity-1 unit inside a recurrence that leaves room for only three rows
    g = make_graph({"U": 1, "free": None},
                   [("a", "U", 1, 1), ("b", "U", 1, 1), ("c", "U", 1, 1), ("d", "U", 1, 1)],
                   [("a", "b", 0, 0), ("b", "c", 0, 0), ("c", "d", -1, 0), ("d", "a", 0, 1)])
    r = modulo_schedule(g, max_ii=4)
    assert r.ii is None or check_modulo_schedule(g, r.ii, r.starts) == []
    for failure in r.failures:
        assert failure.ii == 4
        assert failure.text().startswith("II 4")


def test_stage_cap():
    g = make_graph({"free": None}, [("a", "free", 4, 1), ("b", "free", 4, 1), ("c", "free", 1, 1)],
                   [("a", "b", 0, 0), ("b", "c", 0, 0)])
    assert modulo_schedule(g).stages == 9
    r = modulo_schedule(g, max_stages=3)
    _valid(g, r)
    assert r.ii == 3 and r.stages <= 3


def test_unschedulable_graph_raises():
    g = make_graph({"free": None}, [("a", "free", 1, 1), ("b", "free", 1, 1)],
                   [("a", "b", 0, 0), ("b", "a", 0, 0)])
    with pytest.raises(GraphError):
        modulo_schedule(g)


def test_deterministic():
    g = three_in_one_slot()
    assert modulo_schedule(g).starts == modulo_schedule(g).starts


def _multi_cycle_loop():
    """13 ops with multi-cycle occupancies on three one-unit resources (a random loop of the
    kind the default mode must get right): the placement heuristic stops at II 23, the
    optimum is 22."""
    return make_graph(
        {"mem": 1, "alu": 1, "mul": 1, "free": None},
        [("v0", "mem", 6, 6), ("v1", "alu", 1, 1), ("v2", "alu", 6, 6), ("v3", "mem", 8, 8),
         ("v4", "mul", 6, 6), ("v5", "mul", 3, 3), ("v6", "mul", 1, 1), ("v7", "mem", 3, 3),
         ("v8", "alu", 5, 5), ("v9", "mem", 1, 1), ("v10", "mul", 6, 6), ("v11", "alu", 8, 8),
         ("v12", "alu", 2, 2)],
        [("v0", "v1", 0, 0), ("v0", "v2", 0, 0), ("v1", "v2", 1, 0), ("v0", "v3", 0, 0),
         ("v2", "v4", 1, 0), ("v1", "v5", 0, 0), ("v2", "v6", 0, 0), ("v6", "v7", 0, 0),
         ("v2", "v8", 0, 0), ("v6", "v8", 0, 0), ("v8", "v9", 0, 0), ("v8", "v10", 0, 0),
         ("v4", "v10", 0, 0), ("v5", "v11", 0, 0), ("v7", "v11", 1, 0), ("v1", "v12", 0, 0),
         ("v8", "v12", 0, 0), ("v2", "v0", 0, 2)])


def test_default_mode_asks_cp_sat_where_the_heuristic_fails():
    g = _multi_cycle_loop()
    heuristic = modulo_schedule(g, exact=None)
    _valid(g, heuristic)
    assert heuristic.ii == 23 and heuristic.exact is None and heuristic.method == "heuristic"
    r = modulo_schedule(g)
    _valid(g, r)
    assert (r.ii, r.method, r.heuristic_ii, r.lower_bound) == (22, "exact", None, 22)
    assert r.optimal and set(r.arms.values()) <= {"exact", UNCONSTRAINED}
    (proof,) = r.exact.proofs
    assert (proof.ii, proof.status, proof.method) == (22, "feasible", "cp-sat")
    assert proof.work > 0 and r.exact_seconds == proof.seconds
    assert r.exact.status == "optimal" and r.exact.ii == 22


def test_exact_policy_budget_and_size_gate():
    g = _multi_cycle_loop()
    starved = modulo_schedule(g, exact=ExactPolicy(budget=0.0))
    assert starved.ii == 23 and starved.exact is None
    large_only = modulo_schedule(g, exact=ExactPolicy(small_nodes=0, small_gap=-1))
    assert large_only.exact is None
