"""Exact mode: proofs on hand graphs, and the heuristic measured against it on random loops."""

from __future__ import annotations

from graphs import make_graph, three_in_one_slot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.schedule.modulo.exact import exact_min_ii
from tilesched.schedule.modulo.mii import compute_bounds
from tilesched.schedule.modulo.scheduler import modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule


def test_exact_proves_the_optimum_above_mii():
    g = three_in_one_slot()
    r = exact_min_ii(g, workers=2)
    assert (r.status, r.ii, r.mii, r.lower_bound) == ("optimal", 3, 2, 3)
    assert [(p.ii, p.status, p.method) for p in r.proofs] == [
        (2, "infeasible", "window-density"), (3, "feasible", "cp-sat")]
    assert check_modulo_schedule(g, r.ii, r.starts) == []


def test_full_model_proves_it_without_preprocessing():
    r = exact_min_ii(three_in_one_slot(), workers=2, model="full")
    assert [(p.ii, p.status, p.method) for p in r.proofs] == [
        (2, "infeasible", "cp-sat"), (3, "feasible", "cp-sat")]


def test_upper_bound_from_the_heuristic():
    g = three_in_one_slot()
    r = exact_min_ii(g, upper=3, workers=2)
    assert (r.status, r.ii, r.starts) == ("optimal", 3, {})
    r = exact_min_ii(g, upper=2, workers=2)  # an upper bound at MII needs no solving
    assert (r.status, r.ii, r.proofs) == ("optimal", 2, [])


RESOURCES = {"one": 1, "two": 2, "free": None}


@st.composite
def random_loops(draw):
    """Small loop bodies with multi-cycle occupancies: forward zero-distance edges and
    loop-carried edges in any direction."""
    n = draw(st.integers(2, 7))
    nodes = [(f"n{i}", draw(st.sampled_from(list(RESOURCES))), draw(st.integers(0, 4)),
              draw(st.integers(1, 3))) for i in range(n)]
    edges = []
    for _ in range(draw(st.integers(1, 2 * n))):
        u, v = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        distance = 0 if u < v and draw(st.booleans()) else draw(st.integers(1, 2))
        edges.append((f"n{u}", f"n{v}", draw(st.integers(-1, 2)), distance))
    return make_graph(RESOURCES, nodes, edges)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_loops())
def test_heuristic_is_never_below_exact_and_exact_never_below_mii(graph):
    heuristic = modulo_schedule(graph)
    assert check_modulo_schedule(graph, heuristic.ii, heuristic.starts) == []
    exact = exact_min_ii(graph, workers=2, time_limit=20)
    full = exact_min_ii(graph, workers=2, time_limit=20, model="full")
    assert exact.status == full.status == "optimal"
    assert exact.ii == full.ii  # the preprocessing loses nothing
    assert heuristic.ii >= exact.ii >= compute_bounds(graph.compiled()).mii
    assert heuristic.lower_bound <= exact.ii  # window-density proofs are sound
    assert check_modulo_schedule(graph, exact.ii, exact.starts) == []
