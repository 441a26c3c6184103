"""The compiled engine core (``native/core.pyx``) agrees with the Python engine.

On a clean run (no race, no violation, no deadlock) it must give the same cycles, bound, units,
agents, sync ops and peak live events; on any other run it must hand over to the Python engine
(``NeedsPythonEngine``), and that must happen only when the Python engine finds something.
Checked on every example (as written, longer, and synchronized by insert-sync), the synthetic
traces of the three sync families, and random programs of the three families (hypothesis).
"""

from __future__ import annotations

import dataclasses
import os

import pytest
from hypothesis import given
from test_sim_properties import SETTINGS as TRACE_SETTINGS
from test_sim_properties import programs
from test_sim_steady import (
    SETTINGS,
    _amd_program,
    _ascend_program,
    _cuda_program,
    amd_loops,
    ascend_loops,
    cuda_loops,
    scaled,
)

from tilesched.examples import EXAMPLES, example_path
from tilesched.ir import parse_text
from tilesched.sim import native as native_modules
from tilesched.sim.code.program import compile_trace
from tilesched.sim.code.stream import stream_module
from tilesched.sim.engine.critical_path import BoundTracker
from tilesched.sim.engine.engine import Engine
from tilesched.sim.engine.outcome import native_result
from tilesched.sim.run import FullRun
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, ascend_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

native = native_modules.core
if native is None:
    if os.environ.get("TILESCHED_REQUIRE_NATIVE"):
        pytest.fail("TILESCHED_REQUIRE_NATIVE is set but native/core.pyx was not built")
    pytest.skip("native/core.pyx was not built", allow_module_level=True)


def agree(make_program) -> bool:
    """Run one program on both engines; True when the native one finished (and agreed)."""
    python = Engine(make_program()).run()
    program = make_program()
    tracker = BoundTracker(program)
    run = native.NativeEngine(program, True, tracker)
    try:
        run.run()
    except native.NeedsPythonEngine as why:
        assert not (python.ok and python.deadlock is None), f"handed over without cause: {why}"
        return False
    assert not python.races and python.deadlock is None, "a finding the native run missed"
    got = native_result(program, run.summary(), tracker.bound())
    assert dataclasses.asdict(got) == dataclasses.asdict(python)
    return True


def streamed(module, target):
    return lambda: stream_module(module, target)


@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_every_example_as_written_longer_and_synchronized(example):
    spec = next(e for e in EXAMPLES if e.name == example)
    target = load_target(spec.target)
    agree(streamed(parse_text(example_path(example).read_text(), f"{example}.mlir"), target))
    longer = parse_text(scaled(example, 40), f"{example}.mlir")
    agree(streamed(longer, target))
    if not spec.target.startswith("amd"):
        run_pipeline(longer, parse_pass_pipeline("insert-sync"), TileContext(target))
        assert agree(streamed(longer, target)), "a synchronized example should run natively"


@pytest.mark.parametrize("trace", [ascend_gemm(60), cuda_pipeline(80, stages=3),
                                   cuda_pipeline(50, stages=2), amd_lds_gemm(40)],
                         ids=["ascend", "cuda3", "cuda2", "amd"])
def test_synthetic_traces_of_every_family_run_natively(trace):
    assert agree(lambda: compile_trace(trace))


def test_a_race_hands_over_and_the_python_engine_reports_it():
    b = TraceBuilder(ascend_machine())
    x = b.buffer("x", (16, 16), "float16", "UB")
    b.op("tile.fill", unit="V", duration=5, operands=[b.whole(x)], props={"value": 1.0})
    b.op("tile.fill", unit="MTE2", duration=5, operands=[b.whole(x)], props={"value": 2.0})
    trace = b.build()
    assert not agree(lambda: compile_trace(trace))
    result = FullRun(lambda: compile_trace(trace)).run()
    assert result.races and result.races[0].buffer == "x"


@SETTINGS
@given(ascend_loops())
def test_random_ascend_loops(program):
    agree(streamed(_ascend_program(*program), load_target("ascend-a2")))


@SETTINGS
@given(cuda_loops())
def test_random_cuda_loops(program):
    agree(streamed(_cuda_program(*program), load_target("cuda-sm80")))


@SETTINGS
@given(amd_loops())
def test_random_amd_loops(program):
    agree(streamed(_amd_program(*program), load_target("amd-gfx950")))


@TRACE_SETTINGS
@given(programs())
def test_random_straight_line_traces(ops):
    b = TraceBuilder(ascend_machine())
    bufs = [b.buffer(f"b{k}", (4, 8), "float16", "UB") for k in range(3)]
    for op in ops:
        operands = [b.tile(bufs[o[0]], (o[1][0][0], o[1][1][0]),
                           (o[1][0][1] - o[1][0][0], o[1][1][1] - o[1][1][0]))
                    if isinstance(o, tuple) else o for o in op.operands]
        b.op(op.kind, unit=op.unit, duration=op.duration, operands=operands)
        b.op("sync.barrier_all")
    trace = b.build()
    assert agree(lambda: compile_trace(trace))


def test_pure_python_switch(monkeypatch):
    monkeypatch.setenv("TILESCHED_PURE_PYTHON", "1")
    assert native_modules.use(native_modules.core) is None
    monkeypatch.delenv("TILESCHED_PURE_PYTHON")
    assert native_modules.use(native_modules.core) is not None
