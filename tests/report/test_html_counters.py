"""Counter tracks: live events per pair (= sim's peak), outstanding groups, barrier phases."""

from __future__ import annotations

import pytest

from tilesched.report.html.counters import barrier_phases, live_events, outstanding_groups
from tilesched.report.html.events import build_events
from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, cuda_pipeline


def _run(trace):
    result = simulate(trace, record=True)
    return result, build_events(result.timeline, trace.machine)


@pytest.mark.parametrize("iters, limit", [(4, 8), (6, 4)])
def test_live_event_peaks_match_the_simulator(iters, limit):
    result, _ = _run(ascend_gemm(iters, event_limit=limit))
    series = {s["name"]: s for s in live_events(result.timeline)}
    assert {name: s["peak"] for name, s in series.items()} == result.peak_live_events
    for s in series.values():
        assert s["t"] == sorted(s["t"]) and s["v"][-1] == 0  # every flag consumed at the end
        assert len(s["t"]) == len(s["v"])


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_outstanding_groups_peak_at_the_pipeline_depth(stages):
    _, table = _run(cuda_pipeline(8, stages=stages))
    (series,) = outstanding_groups(table)
    assert series["name"] == "ASYNC0"
    assert series["peak"] == stages  # stages-1 in flight, plus the one just committed
    assert series["v"][-1] == 0


def test_barrier_phases_count_every_barrier_of_both_groups():
    iters = 3
    _, table = _run(amd_lds_gemm(iters))
    phases = {s["name"]: s for s in barrier_phases(table)}
    assert set(phases) == {"low", "high"}
    for s in phases.values():
        assert s["peak"] == 2 * iters + 1  # two per iteration and one before the store
        assert s["v"] == sorted(s["v"])
