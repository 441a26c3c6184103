"""Refutations of an II (interval and circular density, energetic precedence): they prove what
the classic bounds cannot, and never refute an II that has a schedule."""

from __future__ import annotations

from graphs import make_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.schedule.modulo.bounds import (
    CIRCULAR_DENSITY,
    ENERGETIC,
    WINDOW_DENSITY,
    refute_group,
    refute_ii,
)
from tilesched.schedule.modulo.exact import exact_min_ii
from tilesched.schedule.modulo.mii import compute_bounds, window_overload
from tilesched.schedule.modulo.paths import group_distance_matrix, recurrence_groups


def _refute(graph, ii):
    cg = graph.compiled()
    groups = recurrence_groups(cg)
    return refute_ii(cg, groups, [group_distance_matrix(g, ii) for g in groups], ii)


def rounds(count: int = 6):
    """Blowfish in miniature: each round reads four table entries on a two-port memory
    (latency 2) and combines them (latency 1) into the next round's addresses; the last round
    feeds the first of the next iteration. RecMII is 3 per round, but the four reads of a
    round need two cycles of the ports, so every round takes 4."""
    nodes, edges = [], []
    for r in range(count):
        nodes += [(f"r{r}_{k}", "mem", 2, 1) for k in range(4)] + [(f"x{r}", "free", 1, 1)]
        edges += [(f"r{r}_{k}", f"x{r}", 0, 0) for k in range(4)]
        nxt = (r + 1) % count
        edges += [(f"x{r}", f"r{nxt}_{k}", 0, int(nxt == 0)) for k in range(4)]
    return make_graph({"mem": 2, "free": None}, nodes, edges)


def test_energetic_rule_proves_what_recmii_and_interval_density_cannot():
    graph = rounds(6)
    cg = graph.compiled()
    bounds = compute_bounds(cg)
    assert (bounds.rec_mii, bounds.res_mii) == (18, 12)
    (group,) = [g for g in recurrence_groups(cg) if g.bounded]
    assert _refute(graph, 18).rule == WINDOW_DENSITY  # no slack: four reads in one cycle
    for ii in range(19, 24):
        dist = group_distance_matrix(group, ii)
        assert window_overload(cg, group.members, dist.tolist(), ii) is None
        proof = refute_group(cg, group.members, dist, ii)
        assert proof is not None and proof.rule == ENERGETIC, ii
        assert "would have to start in" in proof.detail
    assert _refute(graph, 24) is None
    exact = exact_min_ii(graph, workers=2, bounds=False, time_limit=30)  # CP-SAT alone agrees
    assert (exact.status, exact.ii) == ("optimal", 24)


def test_circular_density_sees_windows_that_wrap_around_ii():
    # relative to a, b starts in [3, II] and c in [3 - II, 0]; at II 4 both windows cover rows
    # {3, 0} only, where a already sits: three ops in two rows of a one-unit resource. As
    # intervals of time the windows [3, 4], [-1, 0], [0, 0] overload nothing.
    graph = make_graph({"U": 1}, [("a", "U", 1, 1), ("b", "U", 1, 1), ("c", "U", 1, 1)],
                       [("a", "b", 2, 0), ("b", "a", -1, 1), ("c", "a", -1, 0),
                        ("a", "c", 2, 1)])
    assert compute_bounds(graph.compiled()).mii == 3
    assert _refute(graph, 3).rule == WINDOW_DENSITY  # c and a in the same cycle
    assert _refute(graph, 4).rule == CIRCULAR_DENSITY
    assert _refute(graph, 5) is None
    exact = exact_min_ii(graph, workers=2, bounds=False)
    assert (exact.status, exact.ii) == ("optimal", 5)


RESOURCES = {"one": 1, "two": 2, "free": None}


@st.composite
def loops(draw):
    """Loop bodies of 3-9 ops with multi-cycle occupancies and recurrences."""
    n = draw(st.integers(3, 9))
    nodes = []
    for i in range(n):
        res = draw(st.sampled_from(list(RESOURCES)))
        latency = draw(st.integers(0, 5))
        nodes.append((f"n{i}", res, latency, max(1, min(latency, draw(st.integers(1, 4))))))
    edges = []
    for _ in range(draw(st.integers(n, 3 * n))):
        u, v = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        distance = 0 if u < v and draw(st.booleans()) else draw(st.integers(1, 2))
        edges.append((f"n{u}", f"n{v}", draw(st.integers(-1, 2)), distance))
    return make_graph(RESOURCES, nodes, edges)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_a_refuted_ii_has_no_schedule(graph):
    """Soundness: CP-SAT alone (the full time-indexed model, no shared preprocessing) finds
    no schedule at any II the refutations reject."""
    mii = compute_bounds(graph.compiled()).mii
    for ii in range(mii, mii + 4):
        proof = _refute(graph, ii)
        if proof is not None:
            exact = exact_min_ii(graph, upper=ii + 1, lower=ii, workers=2, bounds=False,
                                 model="full", time_limit=20)
            assert exact.proofs[0].status == "infeasible", (ii, proof)
