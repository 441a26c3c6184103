"""Recording mode: every executed tile and sync op is in the timeline, with its agent and times."""

from __future__ import annotations

import pytest

from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, ascend_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder

FAMILIES = {
    "ascend flags": lambda: ascend_gemm(6),
    "cuda groups": lambda: cuda_pipeline(6, stages=3),
    "amd barriers": lambda: amd_lds_gemm(4),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_executed_op_is_recorded_once(family):
    result = simulate(FAMILIES[family](), record=True)
    timeline = result.timeline
    assert len(timeline.ops) == result.ops_executed
    assert len(timeline.syncs) == result.sync_ops > 0
    tile_ops = [timeline.op_table[i] for _, _, _, i in timeline.ops]
    sync_ops = [timeline.op_table[i] for _, _, _, i in timeline.syncs]
    assert all(not op.is_sync for op in tile_ops) and all(op.is_sync for op in sync_ops)
    indices = [i for *_, i in timeline.ops] + [i for *_, i in timeline.syncs]
    assert len(indices) == len(set(indices))  # no op twice
    assert all(0 <= start <= end <= result.cycles for _, start, end, _ in timeline.syncs)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_syncs_of_one_agent_are_in_execution_order(family):
    timeline = simulate(FAMILIES[family](), record=True).timeline
    last: dict[int, int] = {}
    for agent, start, end, _ in timeline.syncs:
        assert start >= last.get(agent, 0)
        last[agent] = end


def test_stalls_are_the_syncs_that_blocked():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (16, 16), "float16", "UB")
    y = b.buffer("y", (16, 16), "float16", "UB")
    b.op("tile.load", "MTE2", 50, [b.whole(x), b.whole(y)], loc="k:1:1")
    b.op("sync.set_flag", props={"src": "MTE2", "dst": "V", "event": 0}, loc="k:2:1")
    b.op("sync.wait_flag", props={"src": "MTE2", "dst": "V", "event": 0}, loc="k:3:1")
    b.op("tile.exp", "V", 10, [b.whole(y), b.whole(x)], loc="k:4:1")
    timeline = simulate(b.build(), record=True).timeline
    by_loc = {timeline.op_table[i].loc: (start, end) for _, start, end, i in timeline.syncs}
    assert by_loc["k:2:1"] == (50, 50)  # the set drains the load first
    assert by_loc["k:3:1"][1] == 50 and by_loc["k:3:1"][0] < 50  # V waited for it
    assert [timeline.op_table[i].loc for *_, i in timeline.stalls] == ["k:3:1"]
