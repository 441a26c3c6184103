"""software-pipeline: algorithms (stage arithmetic, slots, waits), IR rewriting, diagnostics.

Every rewritten program is checked on the simulator: race-, deadlock- and violation-free, and
``equivalent`` (same argument buffers on seeded inputs) to the loop before pipelining, for static
trip counts 0 .. stages + 1 and the same counts given at run time.
"""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text, print_module, verify_module
from tilesched.schedule.pipeline.slots import choose_slots
from tilesched.schedule.pipeline.stages import (
    RAW,
    Edge,
    StagedOp,
    issue_slot_count,
    runs_before,
    schedule_violations,
    trip_count,
)
from tilesched.schedule.pipeline.waits import (
    WAIT,
    build_template,
    dynamic_plan,
    static_plan,
)
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

TWO_QUEUES = str(pathlib.Path(__file__).parents[1] / "lit" / "software_pipeline" / "Inputs"
                 / "two_queues.toml")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- pure algorithms


def _op(i, stage, order, queue=None):
    return StagedOp(i, stage, order, frozenset({queue}) if queue is not None else frozenset(),
                    queue is None)


def _waits(items):
    return [i.pending for i in items if i.kind == WAIT]


def _plan(ops, edges, buffers, trips=16):
    ops = {o.id: o for o in ops}
    choice = choose_slots(ops, edges, buffers)
    edges = edges + choice.edges
    template = build_template(ops, edges)
    return choice.slots, static_plan(template, ops, edges, trips, 8)


def test_trip_counts_and_order():
    assert [trip_count(0, n, 1) for n in (0, 1, 5)] == [0, 1, 5]
    assert trip_count(3, 10, 2) == 4 and trip_count(5, 2, 1) == 0
    a, b = _op(0, 0, 1), _op(1, 1, 0)
    assert runs_before(a, b, 0) and not runs_before(b, a, 0) and runs_before(b, a, 1)


def test_issue_slot_count_needs_no_extra_slot_for_an_earlier_reader():
    writer, late_reader, early_reader = _op(0, 0, 1), _op(1, 1, 2), _op(2, 1, 0)
    assert issue_slot_count([(writer, True), (late_reader, False)]) == 2
    assert issue_slot_count([(writer, True), (early_reader, False)]) == 1
    assert issue_slot_count([(_op(0, 0, 0), True), (_op(1, 3, 1), False)]) == 4


def test_two_stages_wait_one_then_zero():
    slots, plan = _plan([_op(0, 0, 0, queue=0), _op(1, 1, 1)], [Edge(0, 1)], {"b": [(0, True), (1, False)]})
    assert slots == {"b": 2}
    assert _waits(plan.kernel) == [1]
    assert [_waits(step) for step in plan.epilogue] == [[0]]


def test_stages_zero_and_three_wait_three_then_two_one_zero():
    slots, plan = _plan([_op(0, 0, 0, queue=0), _op(1, 3, 1)], [Edge(0, 1)], {"b": [(0, True), (1, False)]})
    assert slots == {"b": 4}
    assert _waits(plan.kernel) == [3]
    assert [_waits(step) for step in plan.epilogue] == [[2], [1], [0]]


def test_interleaved_async_producers_wait_five():
    ops = [_op(0, 0, 0, queue=0), _op(1, 0, 2, queue=0), _op(2, 3, 1)]
    slots, plan = _plan(ops, [Edge(0, 2), Edge(1, 2)],
                        {"a": [(0, True), (2, False)], "b": [(1, True), (2, False)]})
    assert _waits(plan.kernel) == [5]
    assert [i.kind for i in plan.kernel] == ["op", "commit", "wait", "op", "op", "commit"]
    assert slots == {"a": 4, "b": 3}  # b's reader runs before b's next writer: no fourth slot


def test_three_chained_stages_two_queues():
    ops = [_op(0, 0, 0, queue=0), _op(1, 1, 1, queue=1), _op(2, 2, 2)]
    slots, plan = _plan(ops, [Edge(0, 1), Edge(1, 2)],
                        {"b": [(0, True), (1, False)], "c": [(1, True), (2, False)]})
    waits = [(i.ref, i.pending) for i in plan.kernel if i.kind == WAIT]
    assert waits == [(0, 1), (1, 1)]
    assert [[(i.ref, i.pending) for i in s if i.kind == WAIT] for s in plan.epilogue] == \
        [[(0, 0), (1, 1)], [(1, 0)]]
    # the async consumer (queue 1) reads b until the wait before stage 2 proves it done:
    # two slots (TVM's max stage + 1) would let the next queue-0 load overwrite it too early
    assert slots == {"b": 3, "c": 2}


def test_dynamic_plan_has_a_predicated_short_version():
    ops = {o.id: o for o in [_op(0, 0, 0, queue=0), _op(1, 3, 1)]}
    edges = [Edge(0, 1), Edge(0, 0, 4, "WAW"), Edge(1, 0, 4, "WAR")]
    plan = dynamic_plan(build_template(ops, edges), ops, edges, 8)
    assert _waits(plan.kernel) == [3]
    assert [_waits(s) for s in plan.epilogue] == [[2], [1], [0]]
    guards = {i.guard for step in plan.short for i in step if i.kind == "op"}
    assert guards == {1, 2}  # trip counts 0, 1, 2 share the short version


def test_schedule_violations_name_the_broken_edge():
    ops = {0: _op(0, 1, 0), 1: _op(1, 0, 1), 2: _op(2, 1, 2)}
    found = schedule_violations(ops, [Edge(0, 1), Edge(2, 0, 0), Edge(1, 2, 1, RAW)])
    assert [(v.edge.src, v.why) for v in found] == [(0, "stage"), (2, "order")]


# ----------------------------------------------------------------------------- programs

CHAINS = {  # (op, source space, destination space) per stage of a pipelined chain
    "ascend-a2": [("tile.load", "GM", "L1"), ("tile.copy", "L1", "UB"),
                  ("tile.muls", "UB", "UB"), ("tile.store", "UB", "GM")],
    "cuda-sm80": [("tile.load", "global", "shared"), ("tile.copy", "shared", "local"),
                  ("tile.muls", "local", "local"), ("tile.store", "local", "global")],
    TWO_QUEUES: [("tile.load", "global", "shared"), ("tile.copy", "shared", "shared"),
                 ("tile.copy", "shared", "local"), ("tile.store", "local", "global")],
}
ROWS = 8


def chain_program(target: str, stages, orders, trips: int | None, lb: int = 0, step: int = 1,
                  max_iv: int = 24, accumulate: int | None = None, async_stages=(0,)) -> str:
    """A loop moving ROWS x 16 blocks through CHAINS[target]; ``trips=None``: bound ``%n``."""
    chain = CHAINS[target]
    ty = {s: f'memref<{ROWS}x16xf32, "{s}">' for _, a, b in chain for s in (a, b)}
    glob = chain[0][1]
    big = f'memref<{ROWS * max_iv}x16xf32, "{glob}">'
    lines = [f'func.func @chain(%x: {big}, %y: {big}{", %n: index" if trips is None else ""}) {{',
             "  %c0 = arith.constant 0 : index",
             f"  %lb = arith.constant {lb} : index", f"  %st = arith.constant {step} : index",
             f"  %rows = arith.constant {ROWS} : index", "  %s = arith.constant 0.5 : f32"]
    ub = "%n" if trips is None else "%ub"
    if trips is not None:
        lines.append(f"  %ub = arith.constant {lb + trips * step} : index")
    for k, (_, _, dst) in enumerate(chain[:-1]):
        lines.append(f"  %t{k} = memref.alloc() : {ty[dst]}")
    last = chain[-2][2]
    if accumulate is not None:
        lines += [f"  %acc = memref.alloc() : {ty[last]}",
                  f"  tile.fill %acc {{value = 0.0 : f32}} : {ty[last]}"]
    lines += [f"  scf.for %i = %lb to {ub} step %st {{",
              "    %off = arith.muli %i, %rows : index",
              f"    %in = tile.view %x[%off, %c0] {{sizes = array<i64: {ROWS}, 16>}} : {big} -> "
              f"{ty[glob]}",
              f"    %out = tile.view %y[%off, %c0] {{sizes = array<i64: {ROWS}, 16>}} : {big} -> "
              f"{ty[glob]}"]
    for k, (name, src, dst) in enumerate(chain):
        a = "%in" if k == 0 else f"%t{k - 1}"
        d = "%out" if k == len(chain) - 1 else f"%t{k}"
        attrs = f"{{tile.stage = {stages[k]}, tile.order = {orders[k]}}}"
        if name == "tile.muls":
            lines.append(f"    {name} {a}, %s, {d} {attrs} : {ty[src]}, f32, {ty[dst]}")
        else:
            lines.append(f"    {name} {a}, {d} {attrs} : {ty[src]}, {ty[dst]}")
    if accumulate is not None:
        t = f"%t{len(chain) - 2}"
        lines.append(f"    tile.add %acc, {t}, %acc {{tile.stage = {accumulate}, tile.order = 99}} : "
                     f"{ty[last]}, {ty[last]}, {ty[last]}")
    lines.append(f"  }} {{tile.async_stages = {list(async_stages)}}}")
    if accumulate is not None:
        lines.append(f"  %acc_out = tile.view %y[%c0, %c0] {{sizes = array<i64: {ROWS}, 16>}} : "
                     f"{big} -> {ty[glob]}")
        if last == "UB" or last == "local":
            lines.append(f"  tile.store %acc, %acc_out : {ty[last]}, {ty[glob]}")
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def pipelined(text: str, target: str, passes: str | None = None) -> tuple[str, TileContext]:
    """Run software-pipeline (and insert-sync on flag targets); return the printed result."""
    tgt = load_target(target)
    module = parse_text(text, "test.mlir")
    verify_module(module, tgt)
    if passes is None:
        passes = "software-pipeline,insert-sync" if tgt.sync == "flags" else "software-pipeline"
    env = TileContext(target=tgt)
    run_pipeline(module, parse_pass_pipeline(passes), env)
    out = print_module(module)
    verify_module(parse_text(out, "out.mlir"), tgt)
    return out, env


def check_equivalent(before: str, after: str, target: str, args=None) -> None:
    """``after`` is race-free and computes what ``before`` means."""
    tgt = load_target(target)
    reference = lower_module(parse_text(before, "a.mlir"), tgt, args)
    candidate = lower_module(parse_text(after, "b.mlir"), tgt, args)
    result = simulate(candidate)
    assert result.ok, (result.races, result.violations, result.deadlock, after)
    verdict = equivalent(reference, candidate)
    assert verdict.equivalent, (verdict.mismatches, verdict.problems, after)


@pytest.mark.parametrize("target", list(CHAINS))
@pytest.mark.parametrize("trips", range(0, 6))
def test_static_trip_counts_are_exact(target, trips):
    text = chain_program(target, [0, 1, 2, 3], [0, 1, 2, 3], trips)
    out, _ = pipelined(text, target)
    check_equivalent(text, out, target)


@pytest.mark.parametrize("target", list(CHAINS))
def test_dynamic_trip_counts_from_zero(target):
    text = chain_program(target, [0, 1, 1, 3], [3, 0, 1, 2], None)
    out, _ = pipelined(text, target)
    for n in range(0, 8):
        check_equivalent(text, out, target, {"n": n})


@pytest.mark.parametrize("target", list(CHAINS))
def test_non_unit_step_and_offset_start(target):
    for trips in (0, 1, 3, 6):
        text = chain_program(target, [0, 0, 1, 2], [0, 3, 1, 2], trips, lb=3, step=2)
        out, _ = pipelined(text, target)
        check_equivalent(text, out, target)
    text = chain_program(target, [0, 0, 1, 2], [0, 3, 1, 2], None, lb=1, step=3, max_iv=30)
    out, _ = pipelined(text, target)
    for n in (0, 1, 4, 7, 11, 20):
        check_equivalent(text, out, target, {"n": n})


def test_accumulator_carried_across_iterations():
    for target in ("ascend-a2", "cuda-sm80"):
        text = chain_program(target, [0, 1, 2, 3], [0, 1, 2, 3], 7, accumulate=2)
        out, _ = pipelined(text, target)
        check_equivalent(text, out, target)


def test_unroll_option_and_flag_target_overlap():
    reversed_orders = chain_program("ascend-a2", [0, 1, 2, 3], [3, 2, 1, 0], 12)
    out, env = pipelined(reversed_orders, "ascend-a2")
    assert set(env.remarks["software-pipeline"][0]["slots"].values()) == {1}  # readers first
    check_equivalent(reversed_orders, out, "ascend-a2")
    text = chain_program("ascend-a2", [0, 1, 2, 3], [0, 1, 2, 3], 12)
    out, env = pipelined(text, "ascend-a2")
    assert set(env.remarks["software-pipeline"][0]["slots"].values()) == {2}
    kernel = _kernel_text(out)
    assert "sync.wait_flag" in kernel and "barrier_all" not in kernel
    assert "step %c2" in kernel.splitlines()[0]  # unrolled twice: every slot index constant
    assert "arith.remui" not in kernel
    for unroll in (1, 3):
        out, env = pipelined(text, "ascend-a2", f"software-pipeline{{unroll={unroll}}},insert-sync")
        check_equivalent(text, out, "ascend-a2")


def _kernel_text(out: str) -> str:
    """The first top-level kernel ``scf.for`` of a printed function, up to its closing brace."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    scf.for"))
    end = next(i for i in range(start, len(lines)) if lines[i] == "    }")
    return "\n".join(lines[start:end + 1])


@st.composite
def schedules(draw):
    """Valid random stages/orders for a four-op chain (stages non-decreasing along it)."""
    stages = sorted(draw(st.lists(st.integers(0, 3), min_size=4, max_size=4)))
    keys = draw(st.permutations(range(4)))
    orders = list(keys)
    for s in set(stages):  # inside a stage, the chain's order must be kept
        members = [k for k in range(4) if stages[k] == s]
        for k, value in zip(members, sorted(orders[k] for k in members), strict=True):
            orders[k] = value
    return stages, orders


@SETTINGS
@given(schedules(), st.sampled_from(list(CHAINS)), st.integers(0, 7), st.booleans(),
       st.sampled_from([(0, 1), (2, 1), (1, 3)]), st.sampled_from([None, 1, 3]))
def test_random_schedules_are_race_free_and_equivalent(schedule, target, trips, dynamic, bounds,
                                                       accumulate):
    stages, orders = schedule
    lb, step = bounds
    if accumulate is not None:
        accumulate = max(accumulate, stages[2])  # the accumulator reads the third op's result
    text = chain_program(target, stages, orders, None if dynamic else trips, lb=lb, step=step,
                         accumulate=accumulate)
    out, _ = pipelined(text, target)
    n = lb + trips * step
    check_equivalent(text, out, target, {"n": n} if dynamic else None)


NESTED = """
func.func @nested(%a: memref<512x32xf16, "global">, %out: memref<512x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %sh = memref.alloc() : memref<128x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %c128 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 128, 32>} : memref<512x32xf16, "global"> -> memref<128x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<128x32xf16, "global">, memref<128x32xf16, "shared">
    scf.for %j = %c0 to %c4 step %c1 {
      %row = arith.muli %j, %c32 : index
      %part = tile.view %sh[%row, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "shared"> -> memref<32x32xf16, "shared">
      tile.copy %part, %r {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
      %orow = arith.addi %off, %row : index
      %dst = tile.view %out[%orow, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
      tile.store %r, %dst {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
    } {tile.stage = 1, tile.order = 1}
  } {tile.async_stages = [0]}
  func.return
}
"""


def test_nested_pipelines_inner_first():
    out, env = pipelined(NESTED, "cuda-sm80")
    remarks = env.remarks["software-pipeline"]
    assert [r["slots"] for r in remarks] == [{"%r": 2}, {"%sh": 2}]
    assert "memref<2x128x32xf16" in out and "memref<2x32x32xf16" in out
    check_equivalent(NESTED, out, "cuda-sm80")


# ----------------------------------------------------------------------------- diagnostics

ERRORS = {
    "no_order": ("{tile.stage = 0}", "{tile.stage = 1, tile.order = 1}",
                 "test.mlir:8:5: error: 'tile.load' has tile.stage = 0 but no tile.order"),
    "duplicate": ("{tile.stage = 0, tile.order = 0}", "{tile.stage = 1, tile.order = 0}",
                  "test.mlir:9:5: error: duplicate tile.order = 0"),
    "stage": ("{tile.stage = 1, tile.order = 0}", "{tile.stage = 0, tile.order = 1}",
              "test.mlir:9:5: error: 'tile.store' (stage 0, order 1) reads %ub after 'tile.load' "
              "(stage 1, order 0) in the same iteration, but is in an earlier stage"),
    "order": ("{tile.stage = 0, tile.order = 1}", "{tile.stage = 0, tile.order = 0}",
              "test.mlir:9:5: error: 'tile.store' (stage 0, order 0) reads %ub after 'tile.load' "
              "(stage 0, order 1) in the same iteration, but both are in stage 0 and its order "
              "puts it first"),
    "unmovable": ("{tile.stage = 0, tile.order = 0}", "",
                  "test.mlir:9:5: error: cannot move 'tile.store'"),
}


def _two_op_loop(load_attrs: str, store_attrs: str, rows: int = 64, after: str = "") -> str:
    ty = f'memref<{rows}x64xf16, "UB">'
    gm = f'memref<{rows}x64xf16, "GM">'
    return f"""func.func @k(%a: {gm}, %b: {gm}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : {ty}
  scf.for %i = %c0 to %c4 step %c1 {{
    %x = arith.addi %i, %c1 : index
    tile.load %a, %ub {load_attrs} : {gm}, {ty}
    tile.store %ub, %b {store_attrs} : {ty}, {gm}
  }}
{after}  func.return
}}
"""


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_located_diagnostics(case):
    load_attrs, store_attrs, message = ERRORS[case]
    with pytest.raises(TileschedError) as err:
        pipelined(_two_op_loop(load_attrs, store_attrs), "ascend-a2", "software-pipeline")
    assert str(err.value).startswith(message), str(err.value)


def test_carried_dependence_on_a_buffer_used_after_the_loop():
    after = '  tile.store %ub, %b : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">\n'
    text = _two_op_loop("{tile.stage = 0, tile.order = 0}", "{tile.stage = 1, tile.order = 1}",
                        after=after)
    with pytest.raises(TileschedError, match="loop-carried WAR dependence on %ub .* cannot be "
                                             "multi-buffered: it is also used outside the loop"):
        pipelined(text, "ascend-a2", "software-pipeline")


def test_capacity_overflow_names_space_and_bytes():
    text = _two_op_loop("{tile.stage = 0, tile.order = 0}", "{tile.stage = 3, tile.order = 1}",
                        rows=512)
    with pytest.raises(TileschedError, match=r'test.mlir:6:3: error: multi-buffering needs '
                                             r'262144 bytes in space "UB" \(%ub: 4 slots x 65536 '
                                             r"bytes\), but target 'ascend-a2' has 196608 bytes"):
        pipelined(text, "ascend-a2", "software-pipeline")


def test_async_mark_on_an_inline_op_warns():
    text = chain_program("cuda-sm80", [0, 1, 2, 3], [0, 1, 2, 3], 4, async_stages=(0, 1))
    _, env = pipelined(text, "cuda-sm80")
    assert any("'tile.copy' is marked asynchronous (stage 1)" in str(d) for d in env.diagnostics)


def test_unannotated_loops_are_left_alone():
    text = _two_op_loop("", "")
    out, _ = pipelined(text, "ascend-a2", "software-pipeline")
    assert out == print_module(parse_text(text))


PRE_LOOP_ASYNC = """
func.func @k(%a: memref<256x32xf16, "global">, %w: memref<32x32xf16, "global">, %out: memref<256x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %wsh = memref.alloc() : memref<32x32xf16, "shared">
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  tile.load %w, %wsh : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
  scf.for %i = %c0 to %c8 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.add %wsh, %wsh, %r {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "shared">, memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    tile.load %src, %sh {tile.stage = 0, tile.order = 1} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.add %sh, %r, %r {tile.stage = 1, tile.order = 2} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 1, tile.order = 3} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  }
  func.return
}
"""


def test_async_copy_before_the_loop_is_completed_first():
    out, _ = pipelined(PRE_LOOP_ASYNC, "cuda-sm80")
    assert out.index("sync.commit_group 0\n    sync.wait_group 0 {pending = 0 : i64}") < \
        out.index("tile.add")
    check_equivalent(PRE_LOOP_ASYNC, out, "cuda-sm80")


def test_single_stage_only_reorders():
    text = chain_program("cuda-sm80", [0, 0, 0, 0], [0, 1, 2, 3], 5)
    out, env = pipelined(text, "cuda-sm80")
    assert env.remarks["software-pipeline"][0]["stages"] == 1
    assert "memref<2x" not in out
    check_equivalent(text, out, "cuda-sm80")


@pytest.mark.parametrize("target", ["amd-gfx950", "amd-gfx1250"])
def test_barrier_targets_stay_correct(target):
    text = """
func.func @k(%a: memref<128x32xf16, "global">, %out: memref<128x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %lds = memref.alloc() : memref<32x32xf16, "LDS">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %lds {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "LDS">
    tile.copy %lds, %r {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "LDS">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 1, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  }
  func.return
}
"""
    out, _ = pipelined(text, target, "software-pipeline,insert-sync")
    check_equivalent(text, out, target)
