"""Functional mode: reference execution, concurrent replay, equivalence."""

from __future__ import annotations

import numpy as np

from tilesched.sim.functional import Memory, equivalent, run_concurrent, run_reference
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, ascend_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder


def _args(memory: Memory) -> dict[str, np.ndarray]:
    return {buf.name: array for buf, array in memory.arguments()}


def test_reference_gemm_matches_numpy():
    trace = ascend_gemm(4, tile=16)
    start = _args(Memory(trace, seed=3))
    final = _args(run_reference(trace, seed=3))
    want = start["A"].astype(np.float32) @ start["B"].astype(np.float32)
    assert np.allclose(final["C"], want, rtol=1e-5, atol=1e-5)
    assert np.array_equal(final["A"], start["A"])


def test_correct_programs_compute_the_reference_result():
    for trace in (ascend_gemm(5, tile=16), cuda_pipeline(5, tile=16), amd_lds_gemm(4, tile=16)):
        verdict = equivalent(trace, trace, seed=1)
        assert verdict.equivalent and verdict.candidate.ok, trace.machine.name


def test_racy_programs_can_compute_wrong_numbers():
    for trace in (ascend_gemm(5, tile=16, forward_flag=False), cuda_pipeline(5, tile=16, pending=3),
                  amd_lds_gemm(4, tile=16, local_barrier=False)):
        verdict = equivalent(trace, trace, seed=1)
        assert not verdict.equivalent
        assert verdict.mismatches[0].buffer == "C"


def test_reads_happen_at_start_and_writes_at_end():
    # MTE2 writes ub during [0, 10); V reads ub at time 1 (no sync): it sees the old contents.
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (2, 2), "float32", "GM", True)
    out = b.buffer("out", (2, 2), "float32", "GM", True)
    ub = b.buffer("ub", (2, 2), "float32", "UB")
    b.op("tile.load", "MTE2", 10, [b.whole(x), b.whole(ub)])
    b.op("tile.store", "MTE3", 1, [b.whole(ub), b.whole(out)])
    trace = b.build()
    result, memory = run_concurrent(trace, seed=0)
    assert len(result.races) == 1
    initial = Memory(trace, seed=0)
    assert np.array_equal(_args(memory)["out"], initial.arrays[(ub.id, 0)])
    assert np.array_equal(_args(run_reference(trace))["out"], _args(initial)["x"])


def test_argument_mismatches_are_structural_problems():
    a = ascend_gemm(2, tile=16)
    b = ascend_gemm(2, tile=32)
    verdict = equivalent(a, b)
    assert not verdict.equivalent and verdict.problems


def test_deadlocked_candidate_is_not_equivalent():
    b = TraceBuilder(ascend_machine())
    b.op("sync.wait_flag", props={"src": "MTE2", "dst": "V", "event": 0})
    trace = b.build()
    verdict = equivalent(trace, trace)
    assert not verdict.equivalent and verdict.candidate.deadlock
