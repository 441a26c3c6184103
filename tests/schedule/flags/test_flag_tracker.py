"""FlagTracker, the planner reorder-events schedules with: plan_flags one item at a time,
and the pressure that keeps event ids from running out."""

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.schedule.flags import FlagTracker, Item, count_fallbacks, plan_flags


def slow(examples: int) -> settings:
    """Hypothesis settings without a deadline."""
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def flag_problems(draw):
    """Items on a few units (some inline, some on none) with forward dependences, a limit."""
    n = draw(st.integers(1, 24))
    units = draw(st.lists(st.sampled_from(["A", "B", "C", "P", "S", None]), min_size=n,
                          max_size=n))
    items = [Item(u, inline=(u == "S")) for u in units]
    deps = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                        .filter(lambda d: d[0] < d[1]), max_size=3 * n))
    return items, sorted(deps), draw(st.integers(1, 4))


def _track(items, deps, limit):
    """Add ``items`` in order to a FlagTracker; returns it and the max pressure seen."""
    tracker = FlagTracker(limit, frozenset({"P"}))
    worst = 0
    for j, item in enumerate(items):
        producers = [i for i, k in deps if k == j]
        consumers = tuple(sorted({items[k].unit for i, k in deps if i == j
                                  and items[k].unit and not items[k].inline}))
        before = tracker.pressure()
        predicted = {**before, **tracker.preview(item, producers, consumers)}
        tracker.add(item, producers, consumers)
        after = tracker.pressure()
        assert {k: v for k, v in predicted.items() if v} == {k: v for k, v in after.items() if v}
        recomputed = {pair: tracker.held(pair) + tracker.pending(pair) + (pair in tracker.reserved)
                      for pair in after}
        assert after == recomputed  # pressure kept incrementally = pressure from scratch
        worst = max([worst, *after.values()])
    return tracker, worst


@slow(400)
@given(flag_problems())
def test_tracker_is_plan_flags_one_item_at_a_time(problem):
    items, deps, limit = problem
    plan = plan_flags(items, deps, limit, frozenset({"P"}))
    tracker, _ = _track(items, deps, limit)
    assert bool(count_fallbacks(plan.ops)) == bool(sum(tracker.overflow.values()))
    if not count_fallbacks(plan.ops):
        ops = [dataclasses.astuple(s) for s in tracker.plan_ops()]
        assert ops == [dataclasses.astuple(s) for s in plan.ops]
        assert tracker.peak_events() == plan.peak_events


@slow(400)
@given(flag_problems())
def test_pressure_within_limit_means_ids_never_run_out(problem):
    items, deps, limit = problem
    tracker, worst = _track(items, deps, limit)
    if worst <= limit:
        assert not any(tracker.overflow.values())


def test_a_later_producer_covers_an_earlier_one():
    """Broadcast and latest-producer rules: one flag for L0, L1 -> C1, C0 (C1 waits for L1)."""
    items = [Item("MTE2"), Item("MTE2"), Item("V"), Item("V")]
    tracker = FlagTracker(8)
    tracker.add(items[0], [], ("V",))
    tracker.add(items[1], [], ("V",))
    assert tracker.pressure() == {("MTE2", "V"): 2}
    tracker.add(items[3], [1], ())
    assert tracker.pressure() == {("MTE2", "V"): 1}  # the id held by L1's flag, L0 covered
    tracker.add(items[2], [0], ())
    assert [s.kind for s in tracker.plan_ops()] == ["set", "wait"]


def test_an_id_is_free_again_only_along_happens_before():
    """L0 -> C0 then L1 -> C1: C0's wait does not happen-before L1's set, so two ids."""
    tracker = FlagTracker(8)
    for item, producers in ((Item("MTE2"), []), (Item("V"), [0]), (Item("MTE2"), []),
                            (Item("V"), [2])):
        tracker.add(item, producers, ("V",) if item.unit == "MTE2" else ())
    events = [s.event for s in tracker.plan_ops() if s.kind == "set"]
    assert events == [0, 1]
    assert tracker.peak_events() == {"MTE2->V": 1}  # what insert-sync reports: program order
