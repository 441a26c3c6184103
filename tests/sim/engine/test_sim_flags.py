"""Flag-family (Ascend) traces: timing, races, deadlocks and flag violations."""

from __future__ import annotations

import pytest

from tilesched.sim.run import simulate
from tilesched.sim.synthetic import ascend_gemm, ascend_machine
from tilesched.sim.trace import TraceBuilder


def _kinds(result) -> set[str]:
    return {v.kind for v in result.violations}


def _flag(b: TraceBuilder, kind: str, src: str, dst: str, event: int = 0, loc: str | None = None):
    b.op(f"sync.{kind}", props={"src": src, "dst": dst, "event": event}, loc=loc)


def _producer_consumer(sync: str | None = "flag", event: int = 0, limit: int = 8) -> TraceBuilder:
    """MTE2 loads x into ub, V adds ub to itself into out, ordered by a flag or a barrier_all."""
    b = TraceBuilder(ascend_machine(limit))
    x = b.buffer("x", (4, 4), "float32", "GM", True)
    ub = b.buffer("ub", (4, 4), "float32", "UB")
    out = b.buffer("out", (4, 4), "float32", "UB")
    b.op("tile.load", "MTE2", 10, [b.whole(x), b.whole(ub)], loc="k:1:1")
    if sync == "flag":
        _flag(b, "set_flag", "MTE2", "V", event, "k:2:1")
        _flag(b, "wait_flag", "MTE2", "V", event, "k:3:1")
    elif sync == "barrier":
        b.op("sync.barrier_all", loc="k:2:1")
    b.op("tile.add", "V", 5, [b.whole(ub), b.whole(ub), b.whole(out)], loc="k:4:1")
    return b


def test_flag_orders_producer_and_consumer_and_times_them():
    result = simulate(_producer_consumer().build())
    assert result.ok
    # issue: load at 0 (MTE2 runs 0..10); set at 10; V waits from 3 (issue cost 1 per enqueue)
    assert result.cycles == 15
    assert result.units["MTE2"]["busy"] == 10 and result.units["V"]["busy"] == 5
    assert result.bound == 15  # RAW chain load -> add
    assert result.sync_ops == 2 and result.ops_executed == 2
    assert result.peak_live_events == {"MTE2->V": 1}


def test_missing_flag_is_a_race_even_though_the_timing_is_benign():
    b = _producer_consumer(sync=None)
    result = simulate(b.build())
    assert [(r.buffer, r.first.loc, r.second.loc) for r in result.races] == [("ub", "k:1:1", "k:4:1")]
    race = result.races[0]
    assert (race.first.unit, race.second.unit) == ("MTE2", "V")
    assert (race.first.op, race.second.op) == ("tile.load", "tile.add")


def test_missing_set_deadlocks_and_names_the_waiter():
    b = TraceBuilder(ascend_machine())
    _flag(b, "wait_flag", "MTE2", "V", 3, "k:7:2")
    result = simulate(b.build())
    assert result.deadlock is not None
    (blocked,) = result.deadlock
    assert blocked.agent == "V" and blocked.loc == "k:7:2"
    assert "MTE2->V event 3" in blocked.waiting_for
    assert not result.ok


@pytest.mark.parametrize(("limit", "event", "bad"), [(8, 7, False), (8, 8, True), (4, 4, True),
                                                     (4, 3, False)])
def test_event_id_limit_per_target(limit, event, bad):
    result = simulate(_producer_consumer(event=event, limit=limit).build())
    assert ("event-id-out-of-range" in _kinds(result)) == bad
    assert not result.races


def test_double_set_in_this_timing():
    b = TraceBuilder(ascend_machine())
    _flag(b, "set_flag", "MTE2", "V", 0, "k:1:1")
    _flag(b, "set_flag", "MTE2", "V", 0, "k:2:1")
    _flag(b, "wait_flag", "MTE2", "V", 0, "k:3:1")
    _flag(b, "wait_flag", "MTE2", "V", 0, "k:4:1")
    result = simulate(b.build())
    assert _kinds(result) == {"double-set"}
    assert result.violations[0].detail.startswith("k:2:1")


def test_reuse_without_happens_before_is_reported_even_when_timing_is_fine():
    # The wait consuming the first set runs early in this timing, but nothing orders it before
    # the second set on MTE2 (a wait written before the next set orders nothing, DESIGN §4).
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (4, 4), "float32", "GM", True)
    ub = b.buffer("ub", (4, 4), "float32", "UB")
    _flag(b, "set_flag", "MTE2", "V", 0, "k:1:1")
    _flag(b, "wait_flag", "MTE2", "V", 0, "k:2:1")
    b.op("tile.load", "MTE2", 100, [b.whole(x), b.whole(ub)], loc="k:3:1")
    _flag(b, "set_flag", "MTE2", "V", 0, "k:4:1")
    _flag(b, "wait_flag", "MTE2", "V", 0, "k:5:1")
    result = simulate(b.build())
    assert _kinds(result) == {"unordered-flag-reuse"}
    assert "k:2:1" in result.violations[0].detail


def test_reuse_ordered_by_a_back_edge_flag_is_fine():
    b = TraceBuilder(ascend_machine())
    for _ in range(3):
        _flag(b, "set_flag", "MTE2", "V", 0)
        _flag(b, "wait_flag", "MTE2", "V", 0)
        _flag(b, "set_flag", "V", "MTE2", 0)
        _flag(b, "wait_flag", "V", "MTE2", 0)
    assert simulate(b.build()).ok


def test_flag_left_set_at_the_end():
    b = TraceBuilder(ascend_machine())
    _flag(b, "set_flag", "MTE2", "V", 1, "k:9:9")
    result = simulate(b.build())
    assert _kinds(result) == {"flag-left-set"}
    assert result.peak_live_events == {"MTE2->V": 1}


def test_gemm_pipeline_is_correct_and_overlaps_its_units():
    result = simulate(ascend_gemm(16))
    assert result.ok
    assert result.bound <= result.cycles < 1.5 * result.bound
    assert result.peak_live_events["M->MTE1"] == 2


def test_gemm_without_back_edges_has_loop_carried_war_races():
    result = simulate(ascend_gemm(8, back_edge=False))
    buffers = {r.buffer for r in result.races}
    assert {"l1a", "l1b", "l0a", "l0b"} <= buffers
    # WAR: the copy reading an L1 slot races with the load refilling it two iterations later
    # (``first`` is the side earlier in the source: the load)
    assert any(r.first.loc == "gemm:11:3" and r.second.loc == "gemm:16:3" for r in result.races)
    assert "unordered-flag-reuse" in _kinds(result)


def test_gemm_without_forward_flag_races_and_double_sets():
    result = simulate(ascend_gemm(8, forward_flag=False))
    assert {r.buffer for r in result.races} == {"l0a", "l0b"}
    assert "double-set" in _kinds(result)


def test_gemm_without_drain_leaves_flags_set():
    result = simulate(ascend_gemm(4, drain=False))
    assert _kinds(result) == {"flag-left-set"} and not result.races


def test_event_id_8_in_the_gemm_on_a2_and_4_on_910a():
    assert "event-id-out-of-range" in _kinds(simulate(ascend_gemm(4, event_base=7)))
    assert simulate(ascend_gemm(4, event_base=6)).ok
    assert "event-id-out-of-range" in _kinds(simulate(ascend_gemm(4, event_limit=4, event_base=3)))


def test_barrier_all_orders_everything_issued_before_it():
    result = simulate(_producer_consumer(sync="barrier").build())
    assert result.ok
    assert result.cycles == 10 + 5  # the add is issued when the load has drained


def test_issue_order_alone_orders_nothing_between_units():
    # S issues the load, then the add: both queued, so the add is NOT ordered after the load.
    result = simulate(_producer_consumer(sync=None).build())
    assert len(result.races) == 1


def _vector_chain(ops: int, pipe_barrier: bool) -> TraceBuilder:
    """Two fills on a pipelined V, then (``ops`` == 3) an add reading both."""
    b = TraceBuilder(ascend_machine(pipelined=("V",)))
    a, c, d = (b.buffer(n, (4, 4), "float32", "UB") for n in "acd")
    b.op("tile.fill", "V", 10, [b.whole(a)], {"value": 1.0}, loc="p:1:1")
    b.op("tile.fill", "V", 10, [b.whole(c)], {"value": 2.0}, loc="p:2:1")
    if pipe_barrier:
        b.op("sync.pipe_barrier", props={"pipe": "V"})
    if ops == 3:
        b.op("tile.add", "V", 10, [b.whole(a), b.whole(c), b.whole(d)], loc="p:3:1")
    return b


def test_pipelined_unit_overlaps_own_ops_and_pipe_barrier_drains():
    overlapped = simulate(_vector_chain(2, False).build())
    assert overlapped.ok and overlapped.cycles == 11  # enqueued at 0 and 1, overlapping
    hazard = simulate(_vector_chain(3, False).build())
    assert "pipe-hazard" in _kinds(hazard) and not hazard.races
    fixed = simulate(_vector_chain(3, True).build())
    assert fixed.ok and fixed.cycles == 11 + 10


def test_set_flag_waits_for_earlier_ops_on_its_unit():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (4, 4), "float32", "GM", True)
    ub = b.buffer("ub", (4, 4), "float32", "UB")
    b.op("tile.load", "MTE2", 50, [b.whole(x), b.whole(ub)])
    _flag(b, "set_flag", "MTE2", "MTE3", 0)
    _flag(b, "wait_flag", "MTE2", "MTE3", 0)
    b.op("tile.store", "MTE3", 7, [b.whole(ub), b.whole(x)])
    result = simulate(b.build())
    assert result.ok and result.cycles == 57


def test_issuer_waiting_for_a_flag_orders_what_it_issues_next():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (4, 4), "float32", "GM", True)
    ub = b.buffer("ub", (4, 4), "float32", "UB")
    b.op("tile.load", "MTE2", 50, [b.whole(x), b.whole(ub)])
    _flag(b, "set_flag", "MTE2", "S", 0)
    _flag(b, "wait_flag", "MTE2", "S", 0)
    b.op("tile.store", "MTE3", 7, [b.whole(ub), b.whole(x)])
    result = simulate(b.build())
    assert result.ok and result.cycles == 57
