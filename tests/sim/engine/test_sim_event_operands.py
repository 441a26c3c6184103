"""Event ids given as ``index`` operands (per-slot flags of rolled loops, docs/ir.md): the
simulator evaluates the operand at every execution, and a rolled loop behaves exactly as the
same loop unrolled by its slot count with constant ids; steady-state extrapolation equals full
simulation; the compiled core and the pure-Python engine agree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.ir import parse_text, print_module, verify_module
from tilesched.ir.dsl import Kernel
from tilesched.report.sim_json import sim_json
from tilesched.sim.code.stream import stream_module
from tilesched.sim.engine.engine import Engine
from tilesched.sim.run import run_engine
from tilesched.target import load_target

ASCEND = load_target("ascend-a2")
SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def pingpong(trips: int, slots: int = 2, base: int = 2, wrong: str | None = None):
    """MTE2 loads tile i into slot i mod N of ``in``, V computes it into slot i mod N of
    ``out``, MTE3 stores it; every slot has its own flags, named by index operands
    (``V -> MTE2`` "slot free" ids ``base + i mod N``, the others ``i mod N``), pre-set before
    the loop and drained after it. ``wrong``: "free" waits for the free flag of the next slot,
    "ready" for the ready flag of the next slot, "base" waits for the ready flag with the base
    added (never set)."""
    k = Kernel("pingpong", target="ascend-a2")
    x = k.arg("x", (16 * max(trips, 1), 64), "f16", "GM")
    y = k.arg("y", (16 * max(trips, 1), 64), "f16", "GM")
    src = k.alloc((slots, 16, 64), "f16", "UB", name="in")
    dst = k.alloc((slots, 16, 64), "f16", "UB", name="out")
    for s in range(slots):
        k.set_flag("V", "MTE2", base + s)
        k.set_flag("MTE3", "V", s)
    for i in k.range(trips, name="i"):
        slot = i % slots
        free = slot + base
        nxt = (i + 1) % slots
        a, b = src.slot(slot), dst.slot(slot)
        k.wait_flag("V", "MTE2", nxt + base if wrong == "free" else free)
        k.load(x.view((i * 16, 0), (16, 64)), a)
        k.set_flag("MTE2", "V", slot)
        k.wait_flag("MTE2", "V", nxt if wrong == "ready" else free if wrong == "base" else slot)
        k.wait_flag("MTE3", "V", slot)
        k.exp(a, b)
        k.set_flag("V", "MTE2", free)
        k.set_flag("V", "MTE3", slot)
        k.wait_flag("V", "MTE3", slot)
        k.store(b, y.view((i * 16, 0), (16, 64)))
        k.set_flag("MTE3", "V", slot)
    for s in range(slots):
        k.wait_flag("V", "MTE2", base + s)
        k.wait_flag("MTE3", "V", s)
    return k.module()


def comparable(result) -> dict:
    """Everything ``sim --json`` reports except how the run was obtained."""
    out = sim_json(result)
    for key in ("steady_state", "ops_simulated"):
        out.pop(key)
    out["race_counts"] = [(r.buffer, r.first.loc, r.second.loc, r.count) for r in result.races]
    return out


def simulate(module, steady: bool, pure: bool = False):
    with pytest.MonkeyPatch.context() as patch:
        if pure:
            patch.setenv("TILESCHED_PURE_PYTHON", "1")
        else:
            patch.delenv("TILESCHED_PURE_PYTHON", raising=False)
        engine = Engine(stream_module(module, ASCEND), steady=steady)
        return run_engine(engine), engine


def assert_modes_agree(module):
    """Steady == full, compiled == pure Python; returns the steady result."""
    steady, _ = simulate(module, steady=True)
    full, _ = simulate(module, steady=False)
    assert comparable(steady) == comparable(full)
    pure, _ = simulate(module, steady=True, pure=True)
    assert comparable(pure) == comparable(steady)
    return steady


def test_rolled_pingpong_is_race_free_and_extrapolated_exactly():
    module = pingpong(200)
    verify_module(module, ASCEND)
    result = assert_modes_agree(module)
    assert result.ok, (result.races, result.deadlock, result.violations)
    assert result.peak_live_events["V->MTE2"] == 2  # both slots' free flags pre-set
    (loop,) = result.steady_state
    assert loop["period"] == 2 and loop["skipped_iterations"] > 150


@pytest.mark.parametrize("slots", [2, 3, 4])
def test_more_slots_overlap_more_and_stay_correct(slots):
    result = assert_modes_agree(pingpong(40, slots=slots, base=8 - slots))
    assert result.ok
    single = assert_modes_agree(pingpong(40, slots=1, base=0))
    assert single.ok and result.cycles <= single.cycles


@pytest.mark.parametrize("wrong", ["free", "ready", "base"])
def test_a_wrong_slot_index_is_found(wrong):
    result = assert_modes_agree(pingpong(41, wrong=wrong))
    assert not result.ok
    if wrong == "base":
        assert result.deadlock is not None  # waits for a ready flag nothing sets


def test_the_text_form_simulates_as_the_dsl_form():
    module = pingpong(12)
    text = print_module(module)
    assert 'sync.set_flag "MTE2" -> "V", %' in text
    generic = print_module(module, generic=True)
    for written in (text, generic):
        assert comparable(simulate(parse_text(written, "pp.mlir"), steady=False)[0]) == \
            comparable(simulate(module, steady=False)[0])


# ---------------------------------------------------------------------- rolled == unrolled

PAIRS = [("MTE2", "V"), ("V", "MTE3"), ("MTE3", "MTE2"), ("V", "MTE2"), ("MTE2", "MTE3")]


@st.composite
def flag_loops(draw):
    period = draw(st.integers(1, 4))
    trips = period * draw(st.integers(1, 40))
    body = draw(st.lists(st.sampled_from(["load", "store", "vec", "flag", "set", "wait",
                                          "bar"]), min_size=1, max_size=10))
    picks = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 4)),
                          min_size=len(body), max_size=len(body)))
    return period, trips, body, picks


def _flag_program(period, trips, body, picks, rolled: bool):
    """A random loop whose event ids are ``base + (i + c) mod period``: as index operands
    (``rolled``) or, with the loop unrolled by ``period``, as the constants they evaluate to."""
    k = Kernel("k", target="ascend-a2")
    g = k.arg("g", (16 * (trips + 2), 16), "f16", "GM")
    ub = k.alloc((2, 16, 16), "f16", "UB", name="ub")
    tmp = k.alloc((16, 16), "f16", "UB", name="tmp")

    def iteration(i, r):
        for what, (pair, c, base) in zip(body, picks, strict=True):
            src, dst = PAIRS[pair]
            event = (i + c) % period + base if rolled else (r + c) % period + base
            slot = ub.slot(i % 2)
            if what == "load":
                k.load(g.view((i * 16, 0), (16, 16)), slot)
            elif what == "store":
                k.store(slot, g.view((i * 16, 0), (16, 16)))
            elif what == "vec":
                k.add(slot, tmp, tmp if c % 2 else slot)
            elif what == "flag":
                k.set_flag(src, dst, event)
                k.wait_flag(src, dst, event)
            elif what == "set":
                k.set_flag(src, dst, event)
            elif what == "wait":
                k.wait_flag(src, dst, event)
            elif what == "bar":
                k.barrier_all()

    if rolled:
        for i in k.range(trips, name="i"):
            iteration(i, None)
    else:
        for j in k.range(trips // period, name="j"):
            for r in range(period):
                iteration(j * period + r, r)
    return k.module()


@SETTINGS
@given(flag_loops())
def test_rolled_slot_indexed_ids_behave_as_the_unrolled_constants(program):
    rolled = _flag_program(*program, rolled=True)
    unrolled = _flag_program(*program, rolled=False)
    a, b = assert_modes_agree(rolled), simulate(unrolled, steady=False)[0]
    views = []
    for result in (a, b):
        result.races = sorted(result.races, key=lambda r: (r.buffer, r.first.loc, r.second.loc))
        view = comparable(result)
        if result.deadlock is not None:
            # the bound of a deadlocked run covers the instructions fetched, and the unrolled
            # loop's chunks hold several iterations (both run the same ops: cycles, units)
            for key in ("bound", "bound_reason", "ratio"):
                view.pop(key, None)
        views.append(view)
    assert views[0] == views[1]



# ---------------------------------------------------------------------- the tools around sim

def test_report_shows_each_evaluated_id(tmp_path, capsys):
    from tilesched.cli import main

    path, out = tmp_path / "pp.mlir", tmp_path / "pp.html"
    path.write_text(print_module(pingpong(6)))
    assert main(["report", str(path), "-o", str(out)]) == 0
    html = out.read_text()
    for event in (2, 3):  # base 2 + i mod 2
        assert f"V -\\u003e MTE2, event {event}" in html
    assert "event None" not in html


@pytest.mark.parametrize("pipeline", ["reorder-events", "reorder-events,insert-sync"])
def test_passes_keep_a_program_with_operand_ids_correct(pipeline):
    from tilesched.transforms.pass_base import TileContext
    from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

    module = pingpong(20)
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(ASCEND))
    verify_module(module, ASCEND)
    assert assert_modes_agree(module).ok


def test_tune_searches_a_program_with_operand_ids(tmp_path, capsys):
    import json

    from tilesched.cli import main

    path = tmp_path / "pp.mlir"
    path.write_text(print_module(pingpong(8)))
    assert main(["tune", str(path), "--budget", "6", "--jobs", "1", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["best"]["cycles"] is not None


NESTED = """func.func @k(%x: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %cn = arith.constant 60 : index
  %in = memref.alloc() : memref<2x16x64xf16, "UB">
  %o = memref.alloc() : memref<16x64xf16, "UB">
  sync.set_flag "V" -> "MTE2", 0
  sync.set_flag "V" -> "MTE2", 1
  scf.for %i = %c0 to %cn step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.remui %j, %c2 : index
      %row = arith.muli %j, %c16 : index
      %xs = tile.view %x[%row, %c0] {sizes = array<i64: 16, 64>} : memref<64x64xf16, "GM"> -> memref<16x64xf16, "GM">
      %a = tile.slot %in[%s] : memref<2x16x64xf16, "UB"> -> memref<16x64xf16, "UB">
      sync.wait_flag "V" -> "MTE2", %s
      tile.load %xs, %a : memref<16x64xf16, "GM">, memref<16x64xf16, "UB">
      sync.set_flag "MTE2" -> "V", %s
      sync.wait_flag "MTE2" -> "V", %s
      tile.exp %a, %o : memref<16x64xf16, "UB">, memref<16x64xf16, "UB">
      sync.set_flag "V" -> "MTE2", %s
    }
  }
  sync.wait_flag "V" -> "MTE2", 0
  sync.wait_flag "V" -> "MTE2", 1
  func.return
}
"""


def test_ids_of_an_inner_loop_let_the_outer_loop_be_extrapolated():
    """Ids ``j mod 2`` of an inner loop repeat in every outer iteration (3 inner trips: the
    parity of the flags' use alternates between outer iterations, which the state shows)."""
    result = assert_modes_agree(parse_text(NESTED, "nested.mlir"))
    assert result.ok
    assert result.steady_state and result.steady_state[0]["skipped_iterations"] > 30


@pytest.mark.parametrize(("slots", "offset", "base"), [(2, 0, 0), (2, 1, 4), (3, 2, 5), (4, 0, 1)])
def test_slot_event_builds_the_id_the_verifier_bounds_and_the_simulator_evaluates(
        slots, offset, base):
    """``sync.slot_event`` (what a pass uses to emit per-slot flags): its value takes
    ``base .. base + slots - 1``, and a loop setting and waiting that id each iteration (then
    a barrier_all, which orders the wait before the id's next set) runs clean."""
    from tilesched.ir.affine import index_values
    from tilesched.ir.sync import make_barrier_all, make_set, make_wait, slot_event

    module = parse_text("""func.func @k() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  scf.for %i = %c0 to %c9 step %c1 {
  }
  func.return
}""", "k.mlir")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    body = loop.body.block
    ops, event = slot_event(body.args[0], slots, offset, base)
    for op in [*ops, make_set("MTE2", "V", event), make_wait("MTE2", "V", event),
               make_barrier_all()]:
        body.insert_op_before(op, body.last_op)
    assert index_values(event) == set(range(base, base + slots))
    verify_module(module, ASCEND)
    text = print_module(module)
    assert 'sync.set_flag "MTE2" -> "V", %' in text
    result = assert_modes_agree(parse_text(text, "k.mlir"))
    assert result.ok and result.sync_ops == 27
    assert result.peak_live_events == {"MTE2->V": 1}
