"""Group (CUDA cp.async) and barrier (AMD issuer groups) families."""

from __future__ import annotations

import pytest

from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_lds_gemm, amd_machine, cuda_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder


def _kinds(result) -> set[str]:
    return {v.kind for v in result.violations}


def _async_then_read(pending: int | None, commit: bool = True) -> TraceBuilder:
    """One cp.async into shared, optionally committed and waited, then an inline read."""
    b = TraceBuilder(cuda_machine())
    g = b.buffer("g", (8, 8), "float16", "global", True)
    s = b.buffer("s", (8, 8), "float16", "shared")
    r = b.buffer("r", (8, 8), "float16", "local")
    b.op("tile.load", "ASYNC0", 100, [b.whole(g), b.whole(s)], async_queue=0, loc="c:1:1")
    if commit:
        b.op("sync.commit_group", props={"queue": 0}, loc="c:2:1")
    if pending is not None:
        b.op("sync.wait_group", props={"queue": 0, "pending": pending}, loc="c:3:1")
    b.op("tile.copy", "T", 10, [b.whole(s), b.whole(r)], loc="c:4:1")
    return b


def test_wait_group_zero_orders_the_async_copy_before_the_read():
    result = simulate(_async_then_read(0).build())
    assert result.ok
    assert result.cycles == 110  # the copy starts at 0, the read waits for it
    assert result.units["ASYNC0"]["busy"] == 100 and result.units["T"]["busy"] == 10


def test_wait_group_with_one_pending_leaves_the_only_group_unfinished():
    result = simulate(_async_then_read(1).build())
    assert [(r.buffer, r.first.loc, r.second.loc) for r in result.races] == [("s", "c:1:1", "c:4:1")]
    assert (result.races[0].first.unit, result.races[0].second.unit) == ("ASYNC0", "T")


def test_uncommitted_copy_is_not_covered_by_wait_group():
    assert len(simulate(_async_then_read(0, commit=False).build()).races) == 1


def test_negative_pending_and_unknown_queue_are_violations():
    b = _async_then_read(-1)
    result = simulate(b.build())
    assert "wait-group-count" in _kinds(result)
    assert not result.races  # treated as 0
    b2 = TraceBuilder(cuda_machine())
    b2.op("sync.wait_group", props={"queue": 3, "pending": 0}, loc="q:1:1")
    assert _kinds(simulate(b2.build())) == {"unknown-queue"}


def test_empty_groups_among_many_commits_keep_their_completion():
    """Long runs forget old groups; an empty group shares its count with the group before it, and
    forgetting one of the two must not forget the other (full simulation once reported a deadlock
    "to finish its first 34 ops; it finished 36" here)."""
    b = TraceBuilder(cuda_machine())
    g = b.buffer("g", (8, 8), "float16", "global", True)
    s = b.buffer("s", (8, 8), "float16", "shared")
    r = b.buffer("r", (8, 8), "float16", "local")
    for i in range(40):
        b.op("sync.commit_group", props={"queue": 0}, loc=f"e:{i}:1")
        b.op("sync.commit_group", props={"queue": 0}, loc=f"e:{i}:2")
        b.op("tile.load", "ASYNC0", 100, [b.whole(g), b.whole(s)], async_queue=0, loc=f"e:{i}:3")
        b.op("sync.commit_group", props={"queue": 0}, loc=f"e:{i}:4")
        b.op("sync.commit_group", props={"queue": 0}, loc=f"e:{i}:5")
        b.op("sync.wait_group", props={"queue": 0, "pending": 2}, loc=f"e:{i}:6")
    b.op("sync.wait_group", props={"queue": 0, "pending": 0}, loc="e:99:1")
    b.op("tile.copy", "T", 10, [b.whole(s), b.whole(r)], loc="e:99:2")
    result = simulate(b.build())
    assert result.deadlock is None
    assert result.ok
    assert result.cycles == 40 * 100 + 10


def test_multistage_pipeline_correct_and_wrong_counts():
    assert simulate(cuda_pipeline(8, stages=3)).ok
    assert simulate(cuda_pipeline(8, stages=4)).ok
    late = simulate(cuda_pipeline(8, stages=3, pending=3))
    assert {r.buffer for r in late.races} == {"sa", "sw"}
    # a smaller pending count is still correct, just slower
    eager = simulate(cuda_pipeline(8, stages=3, pending=0))
    assert eager.ok and eager.cycles >= simulate(cuda_pipeline(8, stages=3)).cycles


def test_amd_lds_pipeline_correct():
    result = simulate(amd_lds_gemm(6))
    assert result.ok
    assert set(result.units) == {"SIMD", "LDS"}
    assert set(result.agents) == {"LDS@low", "LDS@high"}


def test_amd_lds_reuse_without_local_barrier_races():
    result = simulate(amd_lds_gemm(6, local_barrier=False))
    assert {r.buffer for r in result.races} == {"lds_w"}
    race = result.races[0]
    assert {race.first.unit, race.second.unit} == {"LDS@low", "LDS@high"}


def test_amd_lds_read_completes_for_its_own_group_when_it_consumes_the_registers():
    # DESIGN.md §4: the matmul waits for its group's own LDS read (s_waitcnt), no local barrier
    result = simulate(amd_lds_gemm(4, second_barrier=False))
    assert result.ok
    assert result.cycles <= simulate(amd_lds_gemm(4)).cycles


def _lds_then_consumer(consume: str) -> object:
    """One group's LDS read into registers (200 cycles), then an inline op on those registers
    (``consume``: "read" or "write" them) or on others ("other")."""
    b = TraceBuilder(amd_machine())
    lds = b.buffer("lds", (16, 16), "float16", "LDS")
    r, other, out = (b.buffer(n, (16, 16), "float16", "local") for n in ("r", "other", "out"))
    b.op("tile.copy", "LDS", 200, [b.whole(lds), b.whole(r)], lds=True, loc="w:1:1")
    if consume == "read":
        b.op("tile.exp", "SIMD", 10, [b.whole(r), b.whole(out)], loc="w:2:1")
    elif consume == "write":
        b.op("tile.fill", "SIMD", 10, [b.whole(r)], {"value": 0.0}, loc="w:2:1")
    else:
        b.op("tile.exp", "SIMD", 10, [b.whole(other), b.whole(out)], loc="w:2:1")
    b.op("sync.barrier", props={"local": True}, loc="w:3:1")
    return b.build(replicate=True)


def _spans(result) -> dict:
    """(op name, agent name) -> [(start, end)] of the recorded tile ops."""
    tl = result.timeline
    out: dict = {}
    for agent, start, end, op in tl.ops:
        out.setdefault((tl.op_table[op].name, tl.agents[agent]), []).append((start, end))
    return out


@pytest.mark.parametrize("consume", ["read", "write"])
def test_amd_inline_op_on_an_lds_result_waits_for_it(consume):
    result = simulate(_lds_then_consumer(consume), record=True)
    assert result.ok
    spans = _spans(result)
    name = "tile.exp" if consume == "read" else "tile.fill"
    for group in ("low", "high"):
        (copy,) = spans[("tile.copy", f"LDS@{group}")]
        (use,) = spans[(name, group)]
        assert use[0] >= copy[1]  # its own group's copy is done first


def test_amd_inline_op_on_other_registers_does_not_wait():
    result = simulate(_lds_then_consumer("other"), record=True)
    assert result.ok
    spans = _spans(result)
    (copy,) = spans[("tile.copy", "LDS@low")]
    (use,) = spans[("tile.exp", "low")]
    assert use[0] < copy[1]


def test_single_lds_slot_is_safe_with_both_barriers():
    assert simulate(amd_lds_gemm(4, slots=1)).ok


def _two_groups() -> TraceBuilder:
    b = TraceBuilder(amd_machine())
    return b


def test_barriers_match_by_count_and_cond_barrier_runs_in_one_group():
    b = _two_groups()
    b.op("sync.barrier", loc="b:1:1")
    b.op("sync.cond_barrier", props={"group": "high"}, loc="b:2:1")
    trace = b.build(replicate=True)
    result = simulate(trace)
    # low ran 1 barrier, high 2: the extra one finds no partner
    assert _kinds(result) == {"unbalanced-barriers"}
    assert result.deadlock is None
    assert result.sync_ops == 3


def test_cond_barriers_pair_across_groups():
    b = _two_groups()
    b.op("sync.cond_barrier", props={"group": "high"})
    b.op("sync.cond_barrier", props={"group": "low"})
    assert simulate(b.build(replicate=True)).ok


def test_shared_inline_unit_serves_groups_in_time_order():
    b = _two_groups()
    g = b.buffer("g", (8, 8), "float16", "global", True)
    r = b.buffer("r", (8, 8), "float16", "local")
    b.op("tile.load", "SIMD", 100, [b.whole(g), b.whole(r)])
    result = simulate(b.build(replicate=True))
    assert result.ok  # registers are private to each group; reads of global do not conflict
    assert result.cycles == 200  # both groups contend for the one SIMD
    assert result.units["SIMD"]["busy"] == 200


def _store_then_load(load: bool, barrier: bool):
    """Each group stores registers to global g, then (optionally) loads all of g back."""
    b = _two_groups()
    g = b.buffer("g", (8, 8), "float16", "global", True)
    r = b.buffer("r", (8, 8), "float16", "local")
    b.op("tile.fill", "SIMD", 5, [b.whole(r)], {"value": 1.0})
    b.op("tile.store", "SIMD", 5, [b.whole(r), b.whole(g)], loc="s:2:1")
    if barrier:
        b.op("sync.barrier", loc="s:3:1")
    if load:
        b.op("tile.load", "SIMD", 5, [b.whole(g), b.whole(r)], loc="s:4:1")
    return simulate(b.build(replicate=True))


def test_shared_memory_writes_are_split_between_groups():
    assert _store_then_load(False, False).ok  # each group stores its half of g
    racy = _store_then_load(True, False)  # reading all of g needs the other group's half
    assert {(r.buffer, r.first.loc, r.second.loc) for r in racy.races} == {("g", "s:2:1", "s:4:1")}
    assert _store_then_load(True, True).ok
