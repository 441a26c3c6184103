"""Fusion planning on graphs, without IR: cost model, search vs greedy, CP-SAT, spans."""

from __future__ import annotations

import random

import pytest

from tilesched.schedule.fusion.cost import group_cost, plan_cost
from tilesched.schedule.fusion.exact import exact_plan, supports
from tilesched.schedule.fusion.graph import FusionGraph, FusionNode, Stream
from tilesched.schedule.fusion.search import BEAM, _Planner, components, plan_greedy, plan_segment
from tilesched.schedule.fusion.spans import span_order, split_until_contiguous

DOMAIN = ("V", (16, 32))


def node(reads=(None,), readers=(), stays=False, tiles=(), factor=1.0, live=8, fusible=True):
    return FusionNode(fusible, DOMAIN if fusible else None, head_fixed=8, member_fixed=1,
                      factor=factor, reads=tuple(Stream(8, 3, p) for p in reads),
                      write=Stream(8, 3), readers=tuple(readers), write_may_stay=stays,
                      tiles=tuple(tiles), spill=16, live_tiles=live)


def chain(n: int) -> FusionGraph:
    nodes = [node((k - 1 if k else None,), (k + 1,) if k + 1 < n else (), k + 1 < n, (k, k + 1))
             for k in range(n)]
    edges = [(k, k + 1) for k in range(n - 1)]
    return FusionGraph(nodes, edges, edges)


def test_the_cost_model_prices_overheads_traffic_and_spills():
    graph = chain(3)
    alone = plan_cost(graph, [])
    assert alone == 3 * (8 + 8)
    # head 8 + 8; middle: startup 1, its read and its write stay in registers; last reads in
    # registers but writes through the local buffer
    assert group_cost(graph, [0, 1, 2]) == (8 + 8) + (1 + 3) + (1 + 8)
    few = FusionGraph([node(tiles=(0, 1, 2)), node((0,), tiles=(2, 3, 4))], [(0, 1)], [(0, 1)])
    few.nodes[0].live_tiles = 4
    assert group_cost(few, [0, 1]) == 16 + 9  # five tiles, but at most three live at once
    few.nodes[0].live_tiles = 2
    assert group_cost(few, [0, 1]) == 16 + 9 + 16  # three live at once, one over two: one spill
    # a tile passed along the span stays live between its first and last member
    long = FusionGraph([node(tiles=(0, 1)), node((0,), tiles=(1, 2)), node((1,), tiles=(0, 3))],
                       [(0, 1), (1, 2)], [(0, 1), (1, 2)])
    long.nodes[0].live_tiles = 3
    roomy = group_cost(long, [0, 1, 2])
    long.nodes[0].live_tiles = 2  # tile 0 is live at the middle member with tiles 1 and 2
    assert group_cost(long, [0, 1, 2]) == roomy + 16


def test_a_chain_is_one_group_in_order():
    plan = plan_segment(chain(5))
    assert plan.groups == [[0, 1, 2, 3, 4]]
    assert plan.order == [0, 1, 2, 3, 4]
    assert plan.cost == plan_cost(chain(5), plan.groups)


def refusing_graph() -> FusionGraph:
    """Node 0 feeds 1, 2, 3 (2 and 3 also read 0's input ``x``). Merging 0 with 1 pays a little,
    but 1 holds four tiles at once: with 2 or 3 behind it ``x`` stays live across 1 (five, over
    four), so they can no longer join; {0, 2, 3} pays twice as much
    (tests/lit/fuse_tiles/search_refuses_merge)."""
    nodes = [node((None,), (1, 2, 3), False, ("a", "t", "x"), 2.0, live=4),
             node((0, None), (), False, ("t", "d", "u", "e"), live=4),
             node((0,), (), False, ("t", "v", "x"), live=4),
             node((0,), (), False, ("t", "w", "x"), 2.0, live=4)]
    edges = [(0, 1), (0, 2), (0, 3)]
    return FusionGraph(nodes, edges, edges)


def test_search_refuses_a_locally_good_merge_the_greedy_planner_takes():
    graph = refusing_graph()
    greedy, search = plan_greedy(graph), plan_segment(graph)
    assert greedy.groups == [[0, 1]]
    assert search.groups == [[0, 2, 3]]
    assert search.cost < greedy.cost
    solved = exact_plan(graph, seconds=10)
    assert solved.optimal and solved.cost == search.cost


def test_a_group_an_outside_path_would_split_is_never_planned():
    # 0 -> 1 (not fusible) -> 2, and 0 -> 2 directly: {0, 2} cannot be a span
    nodes = [node(), node((0,), fusible=False), node((0, None))]
    graph = FusionGraph(nodes, [(0, 1), (0, 2), (1, 2)], [(0, 2)])
    assert plan_segment(graph).groups == []
    assert exact_plan(graph).groups == []


def test_two_groups_that_would_each_need_to_come_first_are_not_both_planned():
    # 0 -> 2 and 1 -> 3 are candidate pairs; 0 -> 3 and 1 -> 2 cross: one pair only
    nodes = [node(), node(), node((0, 1)), node((1, 0))]
    graph = FusionGraph(nodes, [(0, 2), (0, 3), (1, 2), (1, 3)], [(0, 2), (1, 3)])
    for plan in (plan_segment(graph), plan_greedy(graph), exact_plan(graph)):
        assert len(plan.groups) == 1
        assert span_order(len(graph), graph.edges, plan.groups) is not None


def random_graph(rng: random.Random, n: int) -> FusionGraph:
    """Fusible and other nodes over a few tiles; dependences from reads and writes."""
    nodes, edges, dataflow, writer, readers = [], set(), [], {}, {}
    for i in range(n):
        fusible = rng.random() < 0.8
        reads = rng.sample(range(8), rng.choice([1, 1, 2]))
        written = rng.randrange(8)
        producers = []
        for tile in reads:
            p = writer.get(tile)
            if p is not None:
                edges.add((p, i))
                if fusible and nodes[p].fusible:
                    dataflow.append((p, i))
                    readers.setdefault(p, []).append(i)
                    producers.append(p)
                    continue
                readers.setdefault(p, []).append(-1)
            producers.append(None)
        for j, other in enumerate(nodes):
            if written in other.tiles:
                edges.add((j, i))
        nodes.append(node(producers, (), False, (*reads, written), rng.choice([1.0, 2.0]), 4,
                          fusible))
        writer[written] = i
    for p, rs in readers.items():
        nodes[p].readers = tuple(r for r in rs if r >= 0)
        nodes[p].write_may_stay = all(r >= 0 for r in rs) and rng.random() < 0.7
    return FusionGraph(nodes, sorted(edges), sorted(set(dataflow)))


@pytest.mark.parametrize("seed", range(12))
def test_search_is_feasible_no_worse_than_greedy_and_close_to_exact(seed):
    rng = random.Random(seed)
    graph = random_graph(rng, rng.randint(6, 14))
    search, greedy = plan_segment(graph), plan_greedy(graph)
    for plan in (search, greedy):
        assert plan.cost == plan_cost(graph, plan.groups)
        order = span_order(len(graph), graph.edges, plan.groups)
        assert order is not None
        position = {n: k for k, n in enumerate(plan.order)}
        assert all(position[i] < position[j] for i, j in graph.edges)
        for group in plan.groups:
            assert sorted(position[m] for m in group) == list(
                range(position[group[0]], position[group[0]] + len(group)))
    assert search.cost <= greedy.cost
    assert supports(graph, 32)
    solved = exact_plan(graph, seconds=10, hint=search.groups)
    assert solved.cost <= search.cost  # CP-SAT's objective is plan_cost (asserted inside)
    assert span_order(len(graph), graph.edges, solved.groups) is not None


def test_components_follow_candidate_edges_and_are_cut_into_chunks():
    graph = chain(10)
    assert components(graph) == [list(range(10))]
    assert components(graph, limit=4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_a_group_that_cannot_be_contiguous_is_split_into_convex_runs():
    # 0 -> 1 -> 2 -> 3 with 2 never fusible: the group {0, 1, 3} keeps {0, 1}; {3} is dropped
    edges = [(0, 1), (1, 2), (2, 3)]
    kept, order = split_until_contiguous(4, edges, [[0, 1, 3]])
    assert kept == [[0, 1]] and order == [0, 1, 2, 3]
    # two groups crossing each other: the later one is dissolved
    kept, _ = split_until_contiguous(4, [(0, 3), (1, 2)], [[0, 2], [1, 3]])
    assert len(kept) == 1


def test_improvement_lets_a_node_the_beam_left_alone_join_a_group():
    rng = random.Random(4)  # a graph where the narrowest beam leaves such a node alone
    graph = random_graph(rng, rng.randint(6, 14))
    solved = exact_plan(graph, seconds=10)
    assert solved.optimal
    assert plan_segment(graph, beam=1).cost == solved.cost


def repeated(graph: FusionGraph, copies: int, rng: random.Random) -> FusionGraph:
    """``copies`` copies of ``graph`` one after another, each copy's first node depending on
    a random node of the copy before (an unrolled loop); tiles shared between copies."""
    n = len(graph)
    nodes, edges, dataflow = [], [], []
    for c in range(copies):
        shift = c * n
        for node_ in graph.nodes:
            reads = tuple(Stream(s.ub, s.reg, None if s.producer is None else s.producer + shift)
                          for s in node_.reads)
            nodes.append(FusionNode(node_.fusible, node_.domain, node_.head_fixed,
                                    node_.member_fixed, node_.factor, reads, node_.write,
                                    tuple(r + shift for r in node_.readers),
                                    node_.write_may_stay, node_.tiles, node_.spill,
                                    node_.live_tiles))
        edges += [(i + shift, j + shift) for i, j in graph.edges]
        dataflow += [(i + shift, j + shift) for i, j in graph.dataflow]
        if c:
            edges.append((shift - n + rng.randrange(n), shift))
    return FusionGraph(nodes, edges, dataflow)


@pytest.mark.parametrize("seed", range(40))
def test_a_repeated_component_gets_the_plan_a_fresh_search_finds(seed):
    # the planner reuses the groups of a component identical to one searched before; the
    # reference searches every component
    rng = random.Random(seed)
    graph = repeated(random_graph(rng, rng.randint(4, 12)), rng.randint(2, 4), rng)
    for beam, improve, greedy in ((BEAM, True, False), (3, True, False), (1, False, True)):
        reused = _Planner(graph, beam, improve, greedy).run()
        fresh = _Planner(graph, beam, improve, greedy, reuse=False).run()
        assert (reused.groups, reused.cost, reused.order) == (fresh.groups, fresh.cost,
                                                              fresh.order)
