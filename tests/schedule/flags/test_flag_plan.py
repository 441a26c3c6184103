"""The pure flag planner: implied dependences, one wait per producer unit, id limits, loops."""

from tilesched.schedule.flags import (
    SET,
    WAIT,
    Item,
    count_fallbacks,
    plan_flags,
    plan_loop_flags,
    reuse_is_safe,
)


def _flags(plan):
    return [(s.kind, s.src, s.dst) for s in plan.ops if s.kind in (SET, WAIT)]


def test_one_wait_for_several_producers_on_one_unit():
    items = [Item("MTE2"), Item("MTE2"), Item("V")]
    plan = plan_flags(items, [(0, 2), (1, 2)], limit=8)
    assert _flags(plan) == [("set", "MTE2", "V"), ("wait", "MTE2", "V")]


def test_ids_never_exceed_the_limit_and_widen_before_barrier_all():
    items = [Item("MTE2")] * 6 + [Item("V")] * 6
    plan = plan_flags(items, [(i, 6 + i) for i in range(6)], limit=4)
    assert max(s.event for s in plan.ops if s.kind == SET) == 3
    assert not any(s.kind == "barrier_all" for s in plan.ops)  # widened instead
    assert count_fallbacks(plan.ops) == 1  # one set covers the last three producers
    assert plan.peak_events["MTE2->V"] <= 4
    sets = [s for s in plan.ops if s.kind == SET]
    waits = [s for s in plan.ops if s.kind == "wait"]
    assert len(sets) == len(waits) == 4


def test_barrier_all_only_when_no_flag_of_the_pair_is_pending_to_widen():
    # one id; its wait is placed but the producer's unit cannot know it: nothing to widen
    items = [Item("MTE2"), Item("V"), Item("MTE2"), Item("V")]
    plan = plan_flags(items, [(0, 1), (2, 3)], limit=1)
    assert [s.kind for s in plan.ops].count("barrier_all") == 1
    assert count_fallbacks(plan.ops) == 1


def test_naive_keeps_every_dependence():
    items = [Item("MTE2"), Item("V"), Item("MTE3")]
    plan = plan_flags(items, [(0, 1), (0, 2), (1, 2)], limit=8, naive=True)
    assert ("set", "MTE2", "MTE3") in _flags(plan)


def test_back_edge_flags_are_preset_and_drained():
    items = [Item("MTE2"), Item("MTE3")]            # load then store of one buffer
    plan = plan_loop_flags(items, [(0, 1)], [(1, 0, 1)], limit=8)
    assert [(s.kind, s.src, s.dst) for s in plan.presets] == [("set", "MTE3", "MTE2")]
    assert [(s.kind, s.src, s.dst) for s in plan.drains] == [("wait", "MTE3", "MTE2")]
    assert not plan.serialized
    back = [s for s in plan.body if s.src == "MTE3"]
    assert {s.event for s in back} == {plan.presets[0].event}


def test_forward_carried_dependences_are_synchronized_within_the_iteration():
    items = [Item("MTE2"), Item("V")]
    plan = plan_loop_flags(items, [], [(0, 1, 1)], limit=8)
    assert ("wait", "MTE2", "V") in _flags_of(plan.body) and not plan.serialized
    # the flag's id is re-set every iteration: the set waits (back edge) for the last wait
    assert [(s.kind, s.src, s.dst) for s in plan.presets] == [("set", "V", "MTE2")]
    assert reuse_is_safe(items, plan.body, plan.presets)


def _flags_of(ops):
    return [(s.kind, s.src, s.dst) for s in ops]
