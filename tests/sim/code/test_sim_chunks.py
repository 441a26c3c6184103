"""A compiled trace reaches the engines in chunks (``Program.chunks``), and ``simulate`` frees
its program before the cyclic garbage collector resumes.

How the instructions are cut into chunks must not change anything: the results of every engine
(compiled core, pure Python, the Python engine reporting races and violations) are the same with
one chunk per issuer and with tiny chunks.
"""

from __future__ import annotations

import dataclasses
import gc

import pytest

from tilesched.sim.code import program as program_module
from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, cuda_pipeline

TRACES = [ascend_gemm(40), ascend_gemm(7, back_edge=False), ascend_gemm(6, drain=False),
          ascend_gemm(12, event_limit=1), cuda_pipeline(40), cuda_pipeline(6, pending=5),
          amd_lds_gemm(30), amd_lds_gemm(5, local_barrier=False),
          amd_lds_gemm(5, second_barrier=False)]


@pytest.mark.parametrize("pure", [False, True], ids=["native", "pure"])
@pytest.mark.parametrize("trace", TRACES, ids=lambda t: f"{t.machine.name}-{t.op_count()}")
def test_chunk_size_changes_nothing(trace, pure, monkeypatch):
    if pure:
        monkeypatch.setenv("TILESCHED_PURE_PYTHON", "1")
    monkeypatch.setattr(program_module, "CHUNK", 1 << 30)
    whole = dataclasses.asdict(simulate(trace))
    recorded = simulate(trace, record=True)
    for size in (1, 5, 64):
        monkeypatch.setattr(program_module, "CHUNK", size)
        assert dataclasses.asdict(simulate(trace)) == whole
        again = simulate(trace, record=True)
        assert (again.cycles, again.races, again.violations) == \
            (recorded.cycles, recorded.races, recorded.violations)
    monkeypatch.setattr(program_module, "CHUNK", 5)
    program = program_module.compile_trace(trace)
    chunks = list(program.chunks(0))
    assert len(chunks) > 1 and {len(c) for c in chunks[:-1]} == {5}
    assert [ins for chunk in chunks for ins in chunk] == program.code[0]


def test_simulate_frees_its_program_before_the_collector_resumes():
    """No collection made during ``simulate`` finds the program's objects still young (each
    collection walks all of them: a third of the run time on 100k ops)."""
    trace = ascend_gemm(1000)
    young = []

    def note(phase, info):
        if phase == "start":
            young.append(len(gc.get_objects(generation=0)))

    gc.collect()
    gc.callbacks.append(note)
    try:
        simulate(trace)
    finally:
        gc.callbacks.remove(note)
    assert max(young, default=0) < trace.op_count()
