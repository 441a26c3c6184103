"""The report's event table: issue times, what each op waited for, sync edges, critical path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.report.html.events import build_events
from tilesched.report.html.stalls import CATEGORIES, stall_attribution
from tilesched.sim.run import simulate
from tilesched.sim.synthetic import (
    amd_lds_gemm,
    ascend_gemm,
    ascend_machine,
    cuda_machine,
    cuda_pipeline,
)
from tilesched.sim.trace import TraceBuilder


def _pipelined_vector_kernel():
    """Overlapping ops on a pipelined V, a pipe_barrier, then a set_flag that drains V."""
    b = TraceBuilder(ascend_machine(pipelined=("V",)))
    x = b.buffer("x", (4, 16, 16), "float16", "UB")
    y = b.buffer("y", (16, 16), "float16", "GM", True)
    for k in range(3):
        b.op("tile.exp", "V", 40 + 10 * k, [b.slot(x, k), b.slot(x, k)], loc=f"p:{k + 1}:1")
    b.op("sync.pipe_barrier", props={"pipe": "V"}, loc="p:4:1")
    b.op("tile.add", "V", 20, [b.slot(x, 0), b.slot(x, 1), b.slot(x, 3)], loc="p:5:1")
    b.op("sync.set_flag", props={"src": "V", "dst": "MTE3", "event": 0}, loc="p:6:1")
    b.op("sync.wait_flag", props={"src": "V", "dst": "MTE3", "event": 0}, loc="p:7:1")
    b.op("tile.store", "MTE3", 30, [b.slot(x, 3), b.whole(y)], loc="p:8:1")
    return b.build()


FAMILIES = {
    "ascend flags": lambda: ascend_gemm(5),
    "ascend 4 event ids": lambda: ascend_gemm(3, event_limit=4),
    "ascend pipelined V": _pipelined_vector_kernel,
    "cuda groups": lambda: cuda_pipeline(5, stages=3),
    "amd barriers": lambda: amd_lds_gemm(3),
}


def _table(trace):
    result = simulate(trace, record=True)
    return result, build_events(result.timeline, trace.machine)


def _by_loc(table, loc):
    return [e for e in range(len(table)) if table.loc(e) == loc]


def _flag_kernel(load_cycles=50):
    """MTE2 loads, sets a flag; V waits for it and computes; S issues everything."""
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (16, 16), "float16", "GM", True)
    y = b.buffer("y", (16, 16), "float16", "UB")
    b.op("tile.load", "MTE2", load_cycles, [b.whole(x), b.whole(y)], loc="k:1:1")
    b.op("sync.set_flag", props={"src": "MTE2", "dst": "V", "event": 0}, loc="k:2:1")
    b.op("sync.wait_flag", props={"src": "MTE2", "dst": "V", "event": 0}, loc="k:3:1")
    b.op("tile.exp", "V", 10, [b.whole(y), b.whole(y)], loc="k:4:1")
    return b.build()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_issue_times_explain_every_unit_start(family):
    """A non-pipelined unit starts each op at max(issue time, unit free), as the engine does."""
    trace = FAMILIES[family]()
    _, table = _table(trace)
    pipelined = {n for n, spec in trace.machine.units.items() if spec.pipelined}
    for a, row in enumerate(table.by_row):
        if table.row_kinds[a] == "issuer" or table.rows[a].split("@")[0] in pipelined:
            continue
        free = 0
        for e in row:
            assert table.start[e] == max(table.avail[e], free), (table.rows[a], table.name(e))
            free = table.end[e]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_critical_path_is_a_chain_from_zero_to_the_end(family):
    result, table = _table(FAMILIES[family]())
    path = table.critical_path()
    assert table.end[path[-1]] == result.cycles or max(table.end[e] for e in path) == result.cycles
    assert table.start[path[0]] == 0
    on_path = set(path)
    for e in path:  # each link ends exactly when the next event could go
        dep = table.dep[e]
        if dep < 0:
            assert table.start[e] == 0 or table.dep_kind[e] == "start"
            continue
        assert dep in on_path
        blocked = table.sync[e] and table.end[e] > table.start[e]
        if table.dep_kind[e] == "barrier":
            assert table.start[dep] <= table.end[e]  # the partner arrived by the release
        elif table.dep_kind[e] in ("flag", "group", "drain") and blocked:
            assert table.end[dep] == table.end[e]
        elif table.dep_kind[e] == "pipe":  # pipelined unit: start to start, one cycle
            assert table.start[dep] + 1 == table.start[e]
        elif table.dep_kind[e] != "issue":  # issue adds issue_cost per enqueued op
            assert table.end[dep] <= table.start[e]


def test_a_blocked_wait_points_at_the_set_it_consumed():
    _, table = _table(_flag_kernel())
    (wait,) = _by_loc(table, "k:3:1")
    (set_,) = _by_loc(table, "k:2:1")
    (load,) = _by_loc(table, "k:1:1")
    (exp,) = _by_loc(table, "k:4:1")
    assert (table.dep[wait], table.dep_kind[wait]) == (set_, "flag")
    assert (set_, wait, "flag") in table.edges
    assert (table.dep[exp], table.dep_kind[exp]) == (wait, "unit")
    assert (table.dep[set_], table.dep_kind[set_]) == (load, "unit")
    assert table.critical_path() == [load, set_, wait, exp]
    assert table.avail[load] == 0 and table.avail[set_] == 1  # issue_cost 1 per enqueued op


def test_wait_group_waits_for_the_last_op_of_the_group_it_needs():
    b = TraceBuilder(cuda_machine())
    g = b.buffer("g", (8, 8), "float16", "global", True)
    s = b.buffer("s", (2, 8, 8), "float16", "shared")
    r = b.buffer("r", (8, 8), "float16", "local")
    b.op("tile.load", "ASYNC0", 100, [b.whole(g), b.slot(s, 0)], async_queue=0, loc="c:1:1")
    b.op("sync.commit_group", props={"queue": 0}, loc="c:2:1")
    b.op("tile.load", "ASYNC0", 100, [b.whole(g), b.slot(s, 1)], async_queue=0, loc="c:3:1")
    b.op("sync.commit_group", props={"queue": 0}, loc="c:4:1")
    b.op("sync.wait_group", props={"queue": 0, "pending": 1}, loc="c:5:1")
    b.op("tile.copy", "T", 10, [b.slot(s, 0), b.whole(r)], loc="c:6:1")
    result, table = _table(b.build())
    assert result.ok
    (wait,) = _by_loc(table, "c:5:1")
    (first,) = _by_loc(table, "c:1:1")
    assert (table.dep[wait], table.dep_kind[wait]) == (first, "group")
    assert table.end[wait] == table.end[first] == 100  # not the second group (pending=1)
    assert table.queue_of[wait] == table.rows.index("ASYNC0")
    (commit,) = _by_loc(table, "c:2:1")  # the commit that closed the group it needed
    assert {(table.loc(s), k) for s, t, k in table.edges if t == wait} == {
        ("c:1:1", "group"), ("c:2:1", "group")} and commit >= 0


def test_barriers_wait_for_the_partner_group_and_never_for_themselves():
    _, table = _table(amd_lds_gemm(3))
    barriers = [e for e in range(len(table)) if table.name(e) == "sync.barrier"]
    assert barriers and all(e in table.barrier_index for e in barriers)
    for e in barriers:
        peers = [s for s, t, k in table.edges if t == e and k == "barrier"]
        assert len(peers) == 1 and table.agent[peers[0]] != table.agent[e]
        assert table.barrier_index[peers[0]] == table.barrier_index[e]
        if table.dep_kind[e] == "barrier":  # waited for the other group: it arrived later
            assert table.agent[table.dep[e]] != table.agent[e]


def test_barrier_all_is_ordered_after_every_unit_it_drains():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (16, 16), "float16", "GM", True)
    y = b.buffer("y", (16, 16), "float16", "UB")
    z = b.buffer("z", (16, 16), "float16", "UB")
    b.op("tile.load", "MTE2", 80, [b.whole(x), b.whole(y)], loc="b:1:1")
    b.op("tile.exp", "V", 30, [b.whole(z), b.whole(z)], loc="b:2:1")
    b.op("sync.barrier_all", loc="b:3:1")
    _, table = _table(b.build())
    (barrier,) = _by_loc(table, "b:3:1")
    sources = {table.loc(s) for s, t, k in table.edges if t == barrier and k == "drain"}
    assert sources == {"b:1:1", "b:2:1"}
    assert table.loc(table.dep[barrier]) == "b:1:1" and table.end[barrier] == 80


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_stall_attribution_covers_every_cycle_once(family):
    result, table = _table(FAMILIES[family]())
    for row, totals in zip(table.rows, stall_attribution(table, result.cycles), strict=True):
        assert set(totals) == set(CATEGORIES)
        assert sum(totals.values()) == result.cycles, row
        assert min(totals.values()) >= 0


def test_a_blocked_wait_flag_is_counted_as_waiting_on_a_flag():
    result, table = _table(_flag_kernel(load_cycles=50))
    v = table.rows.index("V")
    totals = stall_attribution(table, result.cycles)[v]
    (wait,) = _by_loc(table, "k:3:1")
    assert totals["flag"] == table.end[wait] - table.start[wait] > 0
    assert totals["busy"] == 10


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 6), st.integers(2, 4), st.booleans())
def test_random_pipelines_have_consistent_causes(iters, stages, amd):
    """Every cause ends no later than what it explains; the critical path ends at the end."""
    trace = amd_lds_gemm(iters, slots=stages) if amd else cuda_pipeline(iters, stages=stages)
    result, table = _table(trace)
    for e in range(len(table)):
        dep = table.dep[e]
        if dep >= 0 and table.dep_kind[e] != "barrier":
            assert table.end[dep] <= max(table.end[e], table.start[e])
    assert max(table.end[e] for e in table.critical_path()) == result.cycles


def test_pipelined_unit_ops_overlap_and_a_set_flag_drains_them():
    result, table = _table(_pipelined_vector_kernel())
    assert result.ok
    exps = [e for e in range(len(table)) if table.name(e) == "tile.exp"]
    assert [table.start[e] for e in exps] == [0, 1, 2]  # issued one cycle apart, overlapping
    (barrier,) = _by_loc(table, "p:4:1")
    (add,) = _by_loc(table, "p:5:1")
    (set_,) = _by_loc(table, "p:6:1")
    assert table.end[barrier] == max(table.end[e] for e in exps)  # pipe_barrier drains V
    assert table.loc(table.dep[barrier]) == "p:3:1" and table.dep_kind[barrier] == "drain"
    assert table.start[add] == table.end[barrier] and table.dep[add] == barrier
    assert table.end[set_] == table.end[add] and table.dep[set_] == add
    v = table.rows.index("V")
    totals = stall_attribution(table, result.cycles)[v]
    assert totals["busy"] == table.end[add] < 40 + 50 + 60 + 20  # overlaps counted once
