"""reorder-events' algorithms on segments: CP-SAT's exact mode against brute force, the heuristic
never losing to the original order, relaxed fallbacks, local search, adoption of exact orders."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tilesched.schedule.reorder.event_schedule import Variant
from tilesched.schedule.reorder.exact import exact_order, supports
from tilesched.schedule.reorder.list_schedule import ReplayFloor
from tilesched.schedule.reorder.order_cost import Machine, OrderCost, evaluate_order
from tilesched.schedule.reorder.search import (
    SegmentSchedule,
    adopt,
    local_search,
    schedule_segment,
)
from tilesched.schedule.reorder.segment import Segment


def slow(examples: int) -> settings:
    """Hypothesis settings for tests that run passes and the simulator: no deadline."""
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

@st.composite
def segments(draw, max_nodes=7):
    n = draw(st.integers(2, max_nodes))
    units = draw(st.lists(st.sampled_from(["MTE2", "V", "MTE3"]), min_size=n, max_size=n))
    durations = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    deps = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                        .filter(lambda d: d[0] < d[1]), max_size=2 * n))
    return Segment(units, durations, deps=sorted(deps))


def _topological_orders(segment: Segment):
    for order in itertools.permutations(range(len(segment))):
        if segment.is_topological(list(order)):
            yield list(order)


@slow(40)
@given(segments(max_nodes=6), st.integers(1, 2))
def test_exact_mode_is_exact_against_brute_force(segment, limit):
    machine = Machine(limit, issue_cycles=0)  # CP-SAT's objective has no issue cycles
    costs = [evaluate_order(segment, order, machine) for order in _topological_orders(segment)]
    fitting = [c.makespan for c in costs if c.fits]
    result = exact_order(segment, machine, seconds=20)
    if not fitting:
        assert result is None
        return
    assert result is not None and result.optimal
    chosen = evaluate_order(segment, result.order, machine)
    assert chosen.fits and result.makespan == chosen.makespan == min(fitting)


@slow(60)
@given(segments(max_nodes=14), st.integers(1, 3), st.sampled_from(["fit", "cycles"]))
def test_heuristic_never_loses_to_the_original_order(segment, limit, objective):
    machine = Machine(limit)
    result = schedule_segment(segment, machine, "all", objective)
    assert segment.is_topological(result.best.order)
    original = result.original
    if objective == "cycles":
        assert result.best.makespan <= original.makespan
    elif original.fits:
        assert result.best.fits and result.best.makespan <= original.makespan
    assert result.strict == result.best.fits or objective == "cycles"


def test_forced_orders_that_need_two_ids_fall_back_to_relaxed():
    """A0 -> A1 on u and B0 -> B1 on d are forced, nothing leads from d back to u."""
    segment = Segment(["u", "d", "u", "d"], [5, 5, 5, 5],
                      deps=[(0, 1), (0, 2), (1, 3), (2, 3)])
    result = schedule_segment(segment, Machine(1))
    assert not result.strict and result.best.fallbacks == 1
    assert schedule_segment(segment, Machine(2)).strict


def test_local_search_only_moves_within_dependences():
    segment = Segment(["MTE2", "V", "MTE2", "V"], [30, 10, 30, 10], deps=[(0, 1), (2, 3)])
    machine = Machine(8)
    start = evaluate_order(segment, [0, 1, 2, 3], machine)
    better = local_search(segment, machine, start, lambda c: (c.fallbacks, c.makespan))
    assert segment.is_topological(better.order) and better.makespan <= start.makespan


def test_an_exact_order_is_adopted_only_when_the_objective_prefers_it():
    def cost(makespan, fallbacks):
        return OrderCost([0], fallbacks, {}, {}, makespan)

    def result(best):
        return SegmentSchedule(best, cost(100, 1), strict=best.fits)

    slow_fit, fast_fit = cost(120, 0), cost(90, 0)
    assert not adopt(result(cost(80, 2)), slow_fit, "fit")  # fits, but costs cycles
    assert adopt(result(cost(80, 2)), fast_fit, "fit")
    assert not adopt(result(cost(80, 2)), fast_fit, "cycles")
    chosen = result(cost(95, 0))
    assert adopt(chosen, fast_fit) and chosen.best is fast_fit and chosen.strict


def test_exact_mode_declines_control_and_inline_nodes():
    assert not supports(Segment(["V", None], [1, 1], control=[False, True]), 12)
    assert not supports(Segment(["V", "S"], [1, 1], inline=[False, True]), 12)
    assert not supports(Segment(["V"] * 13, [1] * 13), 12)


def test_variants_have_distinct_names():
    names = {Variant(s, a, b, c).name for s in ("min-max", "min-max-sum")
             for a in (False, True) for b in (False, True) for c in (False, True)}
    assert len(names) == 16


@st.composite
def mixed_segments(draw, max_nodes=12):
    """Segments with inline, free and boundary nodes, sometimes a loop body (carried deps)."""
    n = draw(st.integers(2, max_nodes))
    units = draw(st.lists(st.sampled_from(["MTE2", "V", "MTE3", "S", None]), min_size=n,
                          max_size=n))
    boundary = [u is None and draw(st.booleans()) for u in units]
    durations = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    deps = sorted(draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                               .filter(lambda d: d[0] < d[1]), max_size=2 * n)))
    carried = None
    if draw(st.booleans()):
        carried = sorted(draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                                st.just(1)), max_size=3)))
    return Segment(units, durations, inline=[u == "S" for u in units], control=boundary,
                   boundary=boundary, deps=deps, carried=carried, trips=2 if carried else 1)


@slow(80)
@given(mixed_segments(), st.integers(1, 3), st.randoms(use_true_random=False))
def test_replay_floor_never_exceeds_the_cycles_of_the_finished_order(segment, limit, rng):
    """Every prefix's floor is at most what the whole order (any sync plan) replays in."""
    machine = Machine(limit, inline_units=frozenset({"S"}))
    order, ready = [], [k for k in range(len(segment)) if not segment.preds[k]]
    indegree = [len(p) for p in segment.preds]
    while ready:
        node = ready.pop(rng.randrange(len(ready)))
        order.append(node)
        for succ in segment.succs[node]:
            indegree[succ] -= 1
            if not indegree[succ]:
                ready.append(succ)
    cycles = evaluate_order(segment, order, machine).makespan
    floor = ReplayFloor(segment, machine.issue_cycles, machine.inline_units)
    for node in order:
        floor.place(node)
        assert floor.bound() <= cycles


@slow(60)
@given(st.one_of(segments(max_nodes=14), mixed_segments(max_nodes=14)), st.integers(1, 3),
       st.sampled_from(["fit", "cycles"]))
@example(Segment(units=["V", "S", None, "S", "S", "V", "MTE2", "S"],
                 durations=[3, 25, 3, 0, 3, 58, 9, 35],
                 inline=[False, True, False, True, True, False, False, True],
                 control=[False] * 8, boundary=[False] * 8, deps=[(1, 3), (1, 4), (3, 5)],
                 order=[], carried=None, trips=1),
         2, "cycles")  # inline-marked producers on a unit the replay queues: no wait in the replay
def test_giving_up_on_slow_runs_keeps_the_chosen_order(segment, limit, objective):
    """Runs stopped by the floor could not have been chosen: the result is the same."""
    machine = Machine(limit)
    kept = schedule_segment(segment, machine, "all", objective)
    full = schedule_segment(segment, machine, "all", objective, stop_early=False)
    assert kept.best.order == full.best.order and kept.strict == full.strict
