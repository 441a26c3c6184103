"""Steady-state simulation gives what full simulation gives (docs/simulator.md, "Steady state");
full simulation with replayed iterations (``replay.py``) gives what it gives lowering every one.

Differential tests: every example (as written, with more iterations, and synchronized by
insert-sync), random loop programs of the three sync families (hypothesis), and the programs that
make periodicity subtle: an event leaking one set per iteration, a deadlock, a leaked flag and an
unsynchronized write that happen only at a late iteration of a long loop. Each is simulated with
every iteration and with steady-state extrapolation; cycles, bound, races (with counts),
deadlock, violations (with counts), units, sync ops and peak live events must be identical.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tilesched.examples import EXAMPLES, example_path
from tilesched.ir import parse_text
from tilesched.ir.dsl import Kernel
from tilesched.report.sim_json import sim_json
from tilesched.sim.code.stream import stream_module
from tilesched.sim.engine.engine import Engine
from tilesched.sim.run import run_engine
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Per example: the loop's trip-count constant and the global shapes that grow with it.
SCALE = {
    "ascend_gemm": ("%c8 = arith.constant 8 :", "8", [("128x512xf16", "128x{}xf16", 64),
                                                      ("512x128xf16", "{}x128xf16", 64)]),
    "ascend_softmax": ("%c4 = arith.constant 4 :", "4", [("256x128xf16", "{}x128xf16", 64)]),
    "ascend_attention": ("%c4 = arith.constant 4 :", "4", [("256x64xf16", "{}x64xf16", 64),
                                                           ("256x64xf32", "{}x64xf32", 64),
                                                           ("256x128xf16", "{}x128xf16", 64)]),
    "cuda_gemm": ("%c8 = arith.constant 8 :", "8", [("128x256xf16", "128x{}xf16", 32),
                                                    ("256x128xf16", "{}x128xf16", 32)]),
    "cuda_attention": ("%c4 = arith.constant 4 :", "4", [("256x64xf16", "{}x64xf16", 64),
                                                         ("256x64xf32", "{}x64xf32", 64)]),
    "amd_gemm": ("%c8 = arith.constant 8 :", "8", [("128x256xf16", "128x{}xf16", 32),
                                                   ("256x128xf16", "{}x128xf16", 32)]),
    "ascend_layernorm": ("%c8 = arith.constant 8 :", "8", [("256x128xf16", "{}x128xf16", 32)]),
    "ascend_attention_epilogue": ("%c4 = arith.constant 4 :", "4", [
        ("256x128xf32", "{}x128xf32", 64), ("256x1xf32", "{}x1xf32", 64),
        ("256x128xf16", "{}x128xf16", 64)]),
    "ascend_gemm_db": ("%c4 = arith.constant 4 :", "4", [("256x2048xf16", "256x{}xf16", 512),
                                                         ("2048x512xf16", "{}x512xf16", 512)]),
    "ascend_gemm_db_free": ("%c4 = arith.constant 4 :", "4", [
        ("256x2048xf16", "256x{}xf16", 512), ("2048x512xf16", "{}x512xf16", 512)]),
    "amd_attention": ("%c8 = arith.constant 8 :", "8", [("64x512xf16", "64x{}xf16", 64),
                                                        ("512x64xf16", "{}x64xf16", 64)]),
}


def simulate_both(module, target, args=None):
    """``(full, steady, steady engine)`` results of one module."""
    full = run_engine(Engine(stream_module(module, target, args), steady=False))
    engine = Engine(stream_module(module, target, args), steady=True)
    return full, run_engine(engine), engine


def comparable(result) -> dict:
    """Everything ``sim --json`` reports except how the run was obtained."""
    out = sim_json(result)
    for key in ("steady_state", "ops_simulated"):
        out.pop(key)
    out["race_counts"] = [(r.buffer, r.first.loc, r.second.loc, r.count) for r in result.races]
    return out


def assert_same(module, target, args=None):
    full, steady, engine = simulate_both(module, target, args)
    assert comparable(steady) == comparable(full)
    assert steady.ops_represented == full.ops_represented == full.ops_simulated
    return steady, engine


def scaled(name: str, trips: int) -> str:
    """An example's text with its loop running ``trips`` iterations."""
    text = example_path(name).read_text()
    line, old, shapes = SCALE[name]
    assert line in text
    text = text.replace(line, line.replace(f"constant {old}", f"constant {trips}"))
    for before, after, block in shapes:
        assert before in text
        text = text.replace(before, after.format(block * trips))
    return text


@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_every_example_as_written_and_longer(example):
    target = load_target(next(e.target for e in EXAMPLES if e.name == example))
    assert_same(parse_text(example_path(example).read_text(), f"{example}.mlir"), target)
    assert_same(parse_text(scaled(example, 60), f"{example}.mlir"), target)


@pytest.mark.parametrize("example", ["ascend_gemm", "cuda_gemm", "amd_gemm"])
def test_synchronized_examples_are_extrapolated_exactly(example):
    spec = next(e for e in EXAMPLES if e.name == example)
    target = load_target(spec.target)
    module = parse_text(scaled(example, 120), f"{example}.mlir")
    if not spec.target.startswith("amd"):  # (amd_gemm's stages stay unsynchronized: racy, periodic)
        run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
    steady, _ = assert_same(module, target)
    assert steady.steady_state, "the synchronized loop should reach a steady state"
    assert steady.ops_simulated < steady.ops_represented


def test_ten_thousand_iterations_and_flat_cost():
    target = load_target("ascend-a2")
    module = parse_text(scaled("ascend_gemm", 10_000), "gemm.mlir")
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
    steady, _ = assert_same(module, target)
    (loop,) = steady.steady_state
    assert loop["skipped_iterations"] > 9_900
    assert steady.ops_simulated < 2_000


# ---------------------------------------------------------------------- late and leaking faults

def _flag_loop(trips: int, late: int, fault: str):
    """An MTE2 -> V -> MTE3 pipeline over ``trips`` blocks; at iteration ``late`` the fault."""
    k = Kernel("k", target="ascend-a2")
    x = k.arg("x", (16 * (trips + 1), 16), "f16", "GM")
    y = k.arg("y", (16 * (trips + 1), 16), "f16", "GM")
    ub = k.alloc((2, 16, 16), "f16", "UB", name="ub")
    out = k.alloc((16, 16), "f16", "UB", name="out")
    for i in k.range(trips, name="i"):
        slot = ub.slot(i % 2)
        k.load(x.view((i * 16, 0), (16, 16)), slot)
        k.set_flag("MTE2", "V", 0)
        k.wait_flag("MTE2", "V", 0)
        k.exp(slot, out)
        k.set_flag("V", "MTE3", 1)
        with k.if_(k.cmp("eq", i, late)):
            if fault == "deadlock":
                k.wait_flag("MTE3", "V", 5)
            elif fault == "leak":
                k.set_flag("MTE2", "MTE3", 3)
            elif fault == "race":  # MTE2 writes what V wrote, with no flag V -> MTE2
                k.load(x.view((0, 0), (16, 16)), out)
        k.wait_flag("V", "MTE3", 1)
        k.store(out, y.view((i * 16, 0), (16, 16)))
        k.barrier_all()
        if fault == "leak-every":
            k.set_flag("MTE1", "V", 2)
    return k.module()


@pytest.mark.parametrize("fault", ["deadlock", "leak", "race", "leak-every"])
def test_faults_at_a_late_iteration_are_found(fault):
    target = load_target("ascend-a2")
    steady, engine = assert_same(_flag_loop(900, 700, fault), target)
    assert not steady.ok
    if fault == "deadlock":
        assert steady.deadlock is not None
    if fault in ("deadlock", "leak", "race"):
        assert steady.steady_state  # the loop before (and after) the fault was extrapolated
    else:
        assert not steady.steady_state  # a leak makes the state grow: simulated in full
        assert any("grows" in why for why in engine.steady.unsteady.values())


# ---------------------------------------------------------------------- random loop programs

ASCEND_PAIRS = [("MTE2", "V"), ("V", "MTE3"), ("MTE3", "MTE2"), ("V", "MTE2"), ("MTE2", "MTE3")]


@st.composite
def ascend_loops(draw):
    trips = draw(st.integers(1, 300))
    body = draw(st.lists(st.sampled_from(["load", "store", "vec", "flag", "set", "wait", "bar",
                                          "late", "mod"]), min_size=1, max_size=10))
    return trips, body, draw(st.integers(0, 320)), draw(st.lists(st.integers(0, 7), min_size=12,
                                                                 max_size=12))


def _ascend_program(trips, body, late, picks):
    k = Kernel("k", target="ascend-a2")
    g = k.arg("g", (16 * (trips + 2), 16), "f16", "GM")
    ub = k.alloc((2, 16, 16), "f16", "UB", name="ub")
    tmp = k.alloc((16, 16), "f16", "UB", name="tmp")
    for i in k.range(trips, name="i"):
        for n, what in enumerate(body):
            pick = picks[n % len(picks)]
            slot = ub.slot(i % 2) if pick % 2 else ub.slot(0)
            src, dst = ASCEND_PAIRS[pick % len(ASCEND_PAIRS)]
            event = pick % 3
            if what == "load":
                k.load(g.view((i * 16 + pick % 2, 0), (16, 16)), slot)
            elif what == "store":
                k.store(tmp if pick % 3 else slot, g.view((i * 16, 0), (16, 16)))
            elif what == "vec":
                k.add(slot, tmp, tmp if pick % 2 else slot)
            elif what == "flag":
                k.set_flag(src, dst, event)
                k.wait_flag(src, dst, event)
            elif what == "set":
                k.set_flag(src, dst, event)
            elif what == "wait":
                k.wait_flag(src, dst, event)
            elif what == "bar":
                k.barrier_all()
            elif what == "late":
                with k.if_(k.cmp("eq", i, late)):
                    k.wait_flag(src, dst, event) if pick % 2 else k.set_flag(src, dst, event)
            elif what == "mod":
                with k.if_(k.cmp("eq", i % 3, 1)):
                    k.exp(tmp, slot)
    return k.module()


@SETTINGS
@given(ascend_loops())
@example((2, ["load", "load", "load", "load", "flag", "load", "flag"], 0,
          [0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0]))  # two violations met in either order
def test_random_ascend_loops(program):
    assert_same(_ascend_program(*program), load_target("ascend-a2"))


@st.composite
def cuda_loops(draw):
    trips = draw(st.integers(1, 250))
    body = draw(st.lists(st.sampled_from(["load", "commit", "wait", "use", "late"]), min_size=1,
                         max_size=8))
    return trips, body, draw(st.integers(0, 260)), draw(st.lists(st.integers(0, 5), min_size=8,
                                                                 max_size=8))


def _cuda_program(trips, body, late, picks):
    k = Kernel("k", target="cuda-sm80")
    g = k.arg("g", (16 * (trips + 2), 16), "f16", "global")
    sh = k.alloc((3, 16, 16), "f16", "shared", name="sh")
    reg = k.alloc((16, 16), "f16", "local", name="reg")
    for i in k.range(trips, name="i"):
        for n, what in enumerate(body):
            pick = picks[n % len(picks)]
            slot = sh.slot(i % 3) if pick % 2 else sh.slot(pick % 3)
            if what == "load":
                k.load(g.view((i * 16, 0), (16, 16)), slot)
            elif what == "commit":
                k.commit_group(0)
            elif what == "wait":
                k.wait_group(0, pick % 3)
            elif what == "use":
                k.copy(slot, reg)
            elif what == "late":
                with k.if_(k.cmp("eq", i, late)):
                    k.copy(reg, slot)
    k.wait_group(0, 0)
    return k.module()


@SETTINGS
@given(cuda_loops())
@example((18, ["commit", "commit", "load", "load", "commit", "commit", "wait"], 0,
          [0, 0, 0, 0, 0, 0, 2, 0]))  # empty groups: full mode forgot a completed group's mark
def test_random_cuda_loops(program):
    assert_same(_cuda_program(*program), load_target("cuda-sm80"))


@st.composite
def amd_loops(draw):
    trips = draw(st.integers(1, 150))
    body = draw(st.lists(st.sampled_from(["load", "copy", "bar", "local", "mma", "late"]),
                         min_size=1, max_size=8))
    return trips, body, draw(st.integers(0, 160)), draw(st.lists(st.integers(0, 5), min_size=8,
                                                                 max_size=8))


def _amd_program(trips, body, late, picks):
    k = Kernel("k", target="amd-gfx950")
    g = k.arg("g", (16 * (trips + 2), 16), "f16", "global")
    lds = k.alloc((2, 16, 16), "f16", "LDS", name="lds")
    reg = k.alloc((16, 16), "f16", "local", name="reg")
    acc = k.alloc((16, 16), "f32", "local", name="acc")
    for i in k.range(trips, name="i"):
        for n, what in enumerate(body):
            pick = picks[n % len(picks)]
            slot = lds.slot(i % 2) if pick % 2 else lds.slot(0)
            if what == "load":
                k.load(g.view((i * 16, 0), (16, 16)), slot)
            elif what == "copy":
                k.copy(slot, reg)
            elif what == "bar":
                k.barrier()
            elif what == "local":
                k.barrier(local=True)
            elif what == "mma":
                k.matmul(reg, reg, acc, accumulate=True)
            elif what == "late":
                with k.if_(k.cmp("eq", i, late)):
                    k.barrier(local=bool(pick % 2))
    return k.module()


@SETTINGS
@given(amd_loops())
def test_random_amd_loops(program):
    assert_same(_amd_program(*program), load_target("amd-gfx950"))


# ---------------------------------------------------------------------- replayed iterations

REPLAY_SETTINGS = settings(max_examples=10, deadline=None,
                           suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_replay_exact(module, target, args=None) -> int:
    """Full simulation replaying periodic iterations reports exactly what lowering every
    iteration reports; returns how many iterations were replayed."""
    engine = Engine(stream_module(module, target, args), steady=False)
    replayed = run_engine(engine)
    lowered = run_engine(Engine(stream_module(module, target, args), steady=False, replay=False))
    assert comparable(replayed) == comparable(lowered)
    assert replayed.ops_simulated == lowered.ops_simulated
    return engine.p.lowering.replayed


@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_replayed_iterations_are_exact_on_every_example(example):
    target = load_target(next(e.target for e in EXAMPLES if e.name == example))
    assert_replay_exact(parse_text(scaled(example, 60), f"{example}.mlir"), target)


def test_replay_engages_on_the_synchronized_gemms():
    for name in ("ascend_gemm", "cuda_gemm"):
        spec = next(e for e in EXAMPLES if e.name == name)
        target = load_target(spec.target)
        module = parse_text(scaled(name, 120), f"{name}.mlir")
        run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
        assert assert_replay_exact(module, target) > 100


@REPLAY_SETTINGS
@given(ascend_loops())
def test_replay_random_ascend_loops(program):
    assert_replay_exact(_ascend_program(*program), load_target("ascend-a2"))


@REPLAY_SETTINGS
@given(cuda_loops())
def test_replay_random_cuda_loops(program):
    assert_replay_exact(_cuda_program(*program), load_target("cuda-sm80"))


@REPLAY_SETTINGS
@given(amd_loops())
def test_replay_random_amd_loops(program):
    assert_replay_exact(_amd_program(*program), load_target("amd-gfx950"))


@pytest.mark.parametrize("fault", ["deadlock", "leak", "race", "leak-every"])
def test_replay_around_a_late_fault(fault):
    assert assert_replay_exact(_flag_loop(300, 200, fault), load_target("ascend-a2")) > 150
