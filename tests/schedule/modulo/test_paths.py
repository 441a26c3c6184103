"""Path algorithms: SCCs, longest paths and positive cycles, recurrence groups and their
pairwise distances (vectorised over members, checked against one Bellman-Ford per member),
earliest start times for given rows."""

from __future__ import annotations

import random

import pytest
from graphs import make_graph

from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph
from tilesched.schedule.modulo.paths import (
    _bellman_ford_distances,
    earliest_times,
    group_distance_matrix,
    group_distances,
    longest_paths,
    recurrence_groups,
    strongly_connected_components,
)


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


def _random_loop(seed: int) -> ScheduleGraph:
    rng = random.Random(seed)
    g = ScheduleGraph()
    g.add_resource("R", 1)
    g.add_resource("free", None)
    n = rng.randint(3, 14)
    for i in range(n):
        g.add_node(f"v{i}", rng.choice(["R", "free"]), latency=rng.randint(0, 4))
    for _ in range(rng.randint(n, 3 * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        if a < b:
            g.add_edge(f"v{a}", f"v{b}", delay=rng.randint(-1, 2))
        else:
            g.add_edge(f"v{a}", f"v{b}", delay=rng.randint(-1, 2), distance=rng.randint(1, 3))
    return g


@pytest.mark.parametrize("seed", range(40))
def test_vectorised_group_distances_match_bellman_ford(seed):
    g = _random_loop(seed)
    cg = g.compiled()
    for group in recurrence_groups(cg):
        if not group.bounded:
            continue
        for ii in range(1, 30):
            try:
                expected = _bellman_ford_distances(group, ii)
            except GraphError:
                with pytest.raises(GraphError):
                    group_distance_matrix(group, ii)
                continue
            assert group_distance_matrix(group, ii).tolist() == expected


def test_earliest_times_keep_rows_and_dependences():
    g = make_graph({"R": 1}, [("a", "R", 2, 1), ("b", "R", 1, 1)],
                   [("a", "b", 0, 0), ("b", "a", 0, 1)])
    cg = g.compiled()
    times = earliest_times(cg, 4, [1, 0])
    assert [t % 4 for t in times] == [1, 0]
    assert times[1] >= times[0] + 2 and times[0] + 4 >= times[1] + 1
