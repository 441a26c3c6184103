"""Lower bounds: ResMII, RecMII (against brute force), pooled fine density, stage caps, windows."""

from __future__ import annotations

import pytest
from graphs import make_graph, three_in_one_slot
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.schedule.modulo.graph import GraphError
from tilesched.schedule.modulo.mii import (
    compute_bounds,
    dependency_mii,
    fine_density_mii,
    rec_mii,
    res_mii,
    window_overload,
)
from tilesched.schedule.modulo.paths import group_distances, recurrence_groups


def test_res_mii_counts_blocking_cycles():
    g = make_graph({"M": 2, "V": 1, "free": None},
                   [("a", "M", 1, 3), ("b", "M", 1, 2), ("c", "V", 1, 1), ("d", "free", 1, 1)], [])
    assert res_mii(g.compiled()) == (3, "M")  # ceil(5 / 2)


def test_res_mii_zero_capacity_in_use_is_an_error():
    g = make_graph({"M": 0}, [("a", "M", 1, 1)], [])
    with pytest.raises(GraphError, match="capacity 0"):
        res_mii(g.compiled())


def test_rec_mii_rounds_the_cycle_ratio_up():
    # cycle latency 7 over distance 2: ratio 3.5 -> RecMII 4
    g = make_graph({"free": None}, [("a", "free", 3, 1), ("b", "free", 4, 1)],
                   [("a", "b", 0, 1), ("b", "a", 0, 1)])
    value, cycle = rec_mii(g.compiled())
    assert value == 4 and sorted(cycle) == [0, 1]


def test_rec_mii_zero_distance_positive_cycle_is_an_error():
    g = make_graph({"free": None}, [("a", "free", 1, 1), ("b", "free", 1, 1)],
                   [("a", "b", 0, 0), ("b", "a", 0, 0)])
    with pytest.raises(GraphError, match="distance 0"):
        rec_mii(g.compiled())


def test_rec_mii_acyclic_is_zero_and_mii_at_least_one():
    g = make_graph({"free": None}, [("a", "free", 5, 1), ("b", "free", 1, 1)], [("a", "b", 0, 0)])
    bounds = compute_bounds(g.compiled())
    assert (bounds.rec_mii, bounds.res_mii, bounds.mii) == (0, 0, 1)


def test_fine_density_of_a_pool():
    g = make_graph({"A": 2, "B": 2}, [(f"a{i}", "A", 1, 1) for i in range(3)]
                   + [(f"b{i}", "B", 1, 1) for i in range(3)], [], pools=[("issue", ["A", "B"], 2)])
    cg = g.compiled()
    assert res_mii(cg) == (2, "A")
    assert fine_density_mii(cg) == (3, "issue")
    assert compute_bounds(cg).mii == 3


def test_dependency_mii_with_a_stage_cap():
    g = make_graph({"free": None}, [("a", "free", 4, 1), ("b", "free", 4, 1), ("c", "free", 1, 1)],
                   [("a", "b", 0, 0), ("b", "c", 0, 0)])
    cg = g.compiled()
    assert dependency_mii(cg, None) == 0
    assert dependency_mii(cg, 3) == 3  # path of 8 cycles: 9 starts in 3 stages


def test_window_overload_proves_three_in_one_slot_infeasible():
    cg = three_in_one_slot().compiled()
    (group,) = recurrence_groups(cg)
    found = window_overload(cg, group.members, group_distances(group, 2), 2)
    assert found is not None and found.count == 3 and found.capacity == 2
    assert window_overload(cg, group.members, group_distances(group, 3), 3) is None


def _brute_rec_mii(n, edges):
    """Least integer II >= 0 without a positive cycle, by Floyd-Warshall (independent code)."""
    total = sum(max(lat, 0) for _, _, lat, _ in edges)
    for ii in range(total + 2):
        best = [[None] * n for _ in range(n)]
        for u, v, lat, dist in edges:
            w = lat - ii * dist
            if best[u][v] is None or w > best[u][v]:
                best[u][v] = w
        for k in range(n):
            for i in range(n):
                for j in range(n):
                    if best[i][k] is not None and best[k][j] is not None:
                        cand = best[i][k] + best[k][j]
                        if best[i][j] is None or cand > best[i][j]:
                            best[i][j] = cand
        if all(best[i][i] is None or best[i][i] <= 0 for i in range(n)):
            return ii
    return None


edge_lists = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(-2, 6),
                       st.integers(1, 3)), min_size=1, max_size=12)))


@settings(max_examples=60, deadline=None)
@given(edge_lists)
def test_rec_mii_matches_brute_force(case):
    n, edges = case
    g = make_graph({"free": None}, [(str(i), "free", 0, 0) for i in range(n)],
                   [(str(u), str(v), lat, dist) for u, v, lat, dist in edges])
    value, cycle = rec_mii(g.compiled())
    assert value == _brute_rec_mii(n, edges)
    if value > 0:  # the witness is a cycle that is still positive at RecMII - 1
        nodes = [int(g.compiled().ids[v]) for v in cycle]
        weight = 0
        for u, v in zip(nodes, nodes[1:] + nodes[:1], strict=True):
            weight += max(lat - (value - 1) * dist for a, b, lat, dist in edges if (a, b) == (u, v))
        assert weight > 0
