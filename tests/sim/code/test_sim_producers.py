"""The instruction producers give exactly what their straightforward versions give.

``compile_trace`` and the streamed lowering (``stream.py``, with periodic iterations replayed,
``replay.py``) are optimized; ``sim_producer_reference.py`` keeps the versions they were
optimized from. Every instruction (opcodes, items, access tuples, MARKs, op references), the
violations found while compiling, flags, agents, routes and memory use must be identical, on the
synthetic traces (correct and broken), every example, and random programs; with the compiled
per-op loops (``native/producers.pyx``) and without them (``TILESCHED_PURE_PYTHON``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sim_producer_reference import ReferenceStream, reference_compile_trace
from test_sim_properties import build, flag_pairs, flagged, programs
from test_sim_steady import (
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
from tilesched.sim import native
from tilesched.sim.code.program import compile_trace
from tilesched.sim.code.stream import stream_module
from tilesched.sim.isa import MARK
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.synthetic import (
    amd_lds_gemm,
    amd_machine,
    ascend_gemm,
    ascend_machine,
    cuda_machine,
    cuda_pipeline,
)
from tilesched.sim.trace import Access, TraceBuilder, TraceError, TraceOp
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

if native.producers is None and os.environ.get("TILESCHED_REQUIRE_NATIVE"):
    pytest.fail("TILESCHED_REQUIRE_NATIVE is set but native/producers.pyx was not built")


@pytest.fixture(autouse=True, params=["native", "pure"])
def producers(request, monkeypatch):
    """Run each test with the compiled per-op loops (when built) and with the Python ones."""
    if request.param == "native" and native.producers is None:
        pytest.skip("native/producers.pyx was not built")
    if request.param == "pure":
        monkeypatch.setenv("TILESCHED_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("TILESCHED_PURE_PYTHON", raising=False)
    return request.param


def program_fingerprint(program) -> dict:
    """Everything of a compiled trace the engine reads."""
    return {"code": program.code, "flags": program.flags, "agents": program.agents,
            "inline": program.inline_units, "fed": program.fed, "lds": program.lds_agent,
            "violations": program.static_violations, "memory": program.memory,
            "bases": program.bases, "names": program.buffer_names, "ops": program.ops,
            "max_pending": program.max_pending, "stride": program.virtual_stride,
            "positions": [program.position(k) for k in range(len(program.ops))]}


def assert_same_compiled(trace, with_accesses: bool = True) -> None:
    """compile_trace and the reference agree (on the program, or on the error)."""
    try:
        expected = program_fingerprint(reference_compile_trace(trace, with_accesses))
    except TraceError as error:
        with pytest.raises(TraceError) as raised:
            compile_trace(trace, with_accesses)
        assert str(raised.value) == str(error)
        return
    assert program_fingerprint(compile_trace(trace, with_accesses)) == expected


def _plain(ins: tuple) -> tuple:
    """A MARK names its loop frame object; two lowerings have different frame objects."""
    if ins[0] == MARK:
        return ins[:4] + (ins[4].loop, ins[4].execution)
    return ins


def drained(next_chunk, take_violations, issuers: int) -> list:
    """Every issuer's chunks (round robin, as the engine fetches them when the groups keep
    pace) with the violations found while compiling each."""
    out, live = [], list(range(issuers))
    while live:
        for i in list(live):
            code = next_chunk(i)
            if code is None:
                live.remove(i)
                continue
            out.append((i, [_plain(ins) for ins in code], take_violations()))
    return out


def streamed_fingerprint(module, target, args=None) -> tuple[list, dict]:
    """The optimized streamed program, periodic iterations replayed as ``sim --full`` runs."""
    program = stream_module(module, target, args)
    program.lowering.replay = True
    sources = [program.chunks(i) for i in range(program.issuer_count)]
    chunks = drained(lambda i: next(sources[i], None), program.take_violations,
                     program.issuer_count)
    return chunks, {"memory": program.memory, "flags": program.flags,
                    "max_pending": program.max_pending, "replayed": program.lowering.replayed,
                    "spans": program.spans}


def reference_fingerprint(module, target, args=None) -> tuple[list, dict]:
    """The reference chunk compiler over a lowering of every iteration."""
    ref = ReferenceStream(module, target, args)
    lowered = list(ref.lowering.chunks())
    nexts = [0] * ref.issuers

    def next_chunk(i):
        if nexts[i] == len(lowered):
            return None
        nexts[i] += 1
        return ref.compile(i, lowered[nexts[i] - 1])

    def take():
        found, ref.compiler.violations = ref.compiler.violations, []
        return found

    chunks = drained(next_chunk, take, ref.issuers)
    return chunks, {"memory": ref.use.memory, "flags": ref.compiler.flags,
                    "max_pending": ref.use.max_pending}


def assert_same_streamed(module, target, args=None) -> int:
    """The streamed instructions equal the reference's, chunk by chunk, and with replayed
    iterations batched (several batch sizes) issuer by issuer; returns the iterations replayed."""
    chunks, info = streamed_fingerprint(module, target, args)
    expected, expected_info = reference_fingerprint(module, target, args)
    assert chunks == expected
    replayed = info.pop("replayed")
    assert {k: v for k, v in info.items() if k != "spans"} == expected_info
    for batch in (8, 64, 4096):
        got, batched, repeats = batched_fingerprint(module, target, args, batch)
        spans = got.pop("spans")
        assert got == concatenated(expected)
        assert batched == replayed
        assert spans == info["spans"]
        assert repeats == 0 or native.use(native.repeat) is not None and native.use(native.producers) is not None
    return replayed


def batched_fingerprint(module, target, args, batch: int) -> tuple[dict, int, int]:
    """The streamed program as the compiled engine reads it (``batch_replayed_iterations``):
    ``(instructions and violations per issuer, iterations replayed, replayed runs)``."""
    program = stream_module(module, target, args)
    program.lowering.replay = True
    program.batch_replayed_iterations(batch)
    repeats = 0
    source = program.stream.source

    def counted():
        nonlocal repeats
        for chunk in source:
            repeats += chunk.repeat is not None
            yield chunk

    program.stream.source = counted()
    sources = [program.chunks(i) for i in range(program.issuer_count)]
    chunks = drained(lambda i: next(sources[i], None), program.take_violations,
                     program.issuer_count)
    return {**concatenated(chunks), "spans": program.spans}, program.lowering.replayed, repeats


def concatenated(chunks: list) -> dict:
    """Each issuer's instructions in one list, and the violations found in order."""
    out: dict = {"violations": []}
    for issuer, code, violations in chunks:
        out.setdefault(issuer, []).extend(code)
        out["violations"].extend(violations)
    return out


# ---------------------------------------------------------------------- compile_trace


@pytest.mark.parametrize("trace", [
    ascend_gemm(9), ascend_gemm(7, back_edge=False), ascend_gemm(5, forward_flag=False),
    ascend_gemm(6, drain=False), ascend_gemm(12, event_limit=1), ascend_gemm(4, event_base=7),
    cuda_pipeline(9), cuda_pipeline(8, stages=4), cuda_pipeline(7, pending=-1),
    cuda_pipeline(6, pending=5), amd_lds_gemm(7), amd_lds_gemm(6, slots=3),
    amd_lds_gemm(5, local_barrier=False), amd_lds_gemm(5, second_barrier=False),
], ids=lambda t: t.machine.name)
@pytest.mark.parametrize("with_accesses", [True, False])
def test_synthetic_traces_compile_identically(trace, with_accesses):
    assert_same_compiled(trace, with_accesses)


@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_lowered_examples_compile_identically(example):
    target = load_target(next(e.target for e in EXAMPLES if e.name == example))
    module = parse_text(example_path(example).read_text(), f"{example}.mlir")
    assert_same_compiled(lower_module(module, target))


UNITS_OF = {"ascend": ("MTE2", "MTE1", "V", "M", "MTE3"), "cuda": ("ASYNC0", "T"),
            "amd": ("SIMD", "LDS")}


@SETTINGS
@given(programs(), st.sampled_from(["plain", "flagged", "cuda", "amd"]))
def test_random_traces_compile_identically(program, kind):
    if kind == "plain":
        trace = build(ascend_machine(), program)
    elif kind == "flagged":
        trace = flagged(program, flag_pairs(program))
    else:
        units = UNITS_OF[kind]
        program = [replace(op, unit=units[UNITS_OF["ascend"].index(op.unit) % len(units)])
                   for op in program]
        machine = cuda_machine() if kind == "cuda" else amd_machine()
        trace = build(machine, program, replicate=kind == "amd")
    assert_same_compiled(trace)


SYNCS = [("sync.set_flag", {"src": "MTE2", "dst": "V", "event": 1}),
         ("sync.wait_flag", {"src": "MTE2", "dst": "V", "event": 1}),
         ("sync.set_flag", {"src": "V", "dst": "S", "event": 9}),
         ("sync.wait_flag", {"src": "V", "dst": "S", "event": -1}),
         ("sync.set_flag", {"src": "MTE2", "dst": "V"}),
         ("sync.pipe_barrier", {"pipe": "V"}), ("sync.pipe_barrier", {"pipe": "S"}),
         ("sync.barrier_all", {}), ("sync.commit_group", {"queue": 0}),
         ("sync.commit_group", {"queue": 3}), ("sync.wait_group", {"queue": 0, "pending": 2}),
         ("sync.wait_group", {"queue": 0, "pending": -2}), ("sync.barrier", {"local": True}),
         ("sync.cond_barrier", {"group": "low"}), ("sync.cond_barrier", {"group": "high"}),
         ("sync.setprio", {"priority": 2}), ("sync.sched_barrier", {})]


@st.composite
def mixed_traces(draw):
    """Tile ops (some with bad operands, units or durations) mixed with every kind of sync op
    (some invalid on the machine), on one of the three machines."""
    kind = draw(st.sampled_from(["ascend", "cuda", "amd"]))
    machine = {"ascend": ascend_machine, "cuda": cuda_machine, "amd": amd_machine}[kind]()
    b = TraceBuilder(machine)
    bufs = [b.buffer("g", (8, 8), "float16", "GM"), b.buffer("s", (2, 4, 8), "float16", "shared"),
            b.buffer("r", (4, 8), "float32", "local")]
    units = UNITS_OF[kind] + ("NOPE",) * draw(st.integers(0, 1))
    for _ in range(draw(st.integers(1, 14))):
        if draw(st.booleans()):
            name, props = draw(st.sampled_from(SYNCS))
            b.op(name, props=props, loc=draw(st.sampled_from(["a:1:1", "a:2:1", None])))
            continue
        operands = [draw(st.sampled_from([b.tile(bufs[0], (0, 0), (4, 8)), b.whole(bufs[2]),
                                          b.slot(bufs[1], 1), b.tile(bufs[0], (4, 0), (4, 8)),
                                          0.5])) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.integers(0, 9)) == 0:
            operands.append(Access(7, ((0, 1),), (1,)))
        b.op(draw(st.sampled_from(["tile.copy", "tile.matmul", "tile.call", "tile.add"])),
             draw(st.sampled_from(units)), draw(st.sampled_from([3, 0, -1, 2.5, True])),
             operands, {"accumulate": draw(st.booleans())},
             async_queue=draw(st.sampled_from([None, None, 0, 5])),
             lds=draw(st.booleans()) and kind == "amd")
    return b.build(replicate=kind == "amd" and draw(st.booleans()))


@SETTINGS
@given(mixed_traces(), st.booleans())
def test_random_mixed_traces_compile_identically(trace, with_accesses):
    assert_same_compiled(trace, with_accesses)


@st.composite
def repeating_traces(draw):
    """Tile ops at a few locations whose operands repeat (equal values, new objects) with
    changing units, names, ``accumulate`` and operand shapes: what the compiled loop's access
    memo (``native/producers.pyx`` ``_Memo``) must tell apart."""
    kind = draw(st.sampled_from(["ascend", "cuda", "amd"]))
    machine = {"ascend": ascend_machine, "cuda": cuda_machine, "amd": amd_machine}[kind]()
    b = TraceBuilder(machine)
    g = b.buffer("g", (8, 8), "float16", "GM")
    s = b.buffer("s", (2, 4, 8), "float16", "shared")
    r = b.buffer("r", (4, 8), "float32", "local")
    pool = [lambda: b.tile(g, (0, 0), (4, 8)), lambda: b.tile(g, (4, 0), (4, 8)),
            lambda: Access(g.id, ((0, 4), (0, 8)), (32,)), lambda: b.slot(s, 0),
            lambda: b.slot(s, 1), lambda: b.whole(r), lambda: 2.0]
    units = UNITS_OF[kind]
    for _ in range(draw(st.integers(1, 40))):
        picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=0, max_size=3))
        b.op(draw(st.sampled_from(["tile.copy", "tile.matmul", "tile.call", "tile.add"])),
             draw(st.sampled_from(units)), 3, [pool[k]() for k in picks],
             {"accumulate": draw(st.booleans())}, loc=draw(st.sampled_from(["r:1:1", "r:2:1"])),
             lds=kind == "amd" and draw(st.booleans()))
    return b.build(replicate=kind == "amd")


@SETTINGS
@given(repeating_traces())
def test_repeating_operands_compile_identically(trace):
    assert_same_compiled(trace)


def test_equal_operands_on_other_units_or_with_other_shapes_compile_identically():
    """The same operands at one location, run by another unit (other buffer users), or seen
    with another shape (with several groups an input of the destination's shape is narrowed)."""
    b = TraceBuilder(ascend_machine())
    g, u = b.buffer("g", (8, 8), "float16", "GM"), b.buffer("u", (8, 8), "float16", "UB")
    for unit in ("MTE2", "V", "MTE2", "M"):
        b.op("tile.copy", unit, 3, [b.whole(g), b.whole(u)], loc="same:1:1")
    assert_same_compiled(b.build())
    b = TraceBuilder(amd_machine())
    g, s = b.buffer("g", (4, 8), "float16", "GM"), b.buffer("s", (2, 4, 8), "float16", "LDS")
    for shape in ((4, 8), (32,), (4, 8), (32,)):
        b.op("tile.copy", "SIMD", 3, [Access(g.id, ((0, 4), (0, 8)), shape), b.slot(s, 1)],
             loc="same:2:1")
    assert_same_compiled(b.build(replicate=True))


def test_more_locations_than_the_memo_keeps_compile_identically():
    """Thousands of ops with their own location (the memo starts over) between recurring ones."""
    b = TraceBuilder(ascend_machine())
    g, u = b.buffer("g", (4, 8), "float16", "GM"), b.buffer("u", (2, 4, 8), "float16", "UB")
    for k in range(5000):
        b.op("tile.copy", "MTE2", 3, [b.whole(g), b.slot(u, k % 2)])
        if k % 300 == 0:
            b.op("tile.add", "V", 2, [b.slot(u, 0), b.slot(u, 1)], loc="again:1:1")
    assert_same_compiled(b.build())


def test_a_memo_resting_through_unique_locations_compiles_identically(producers):
    """Ops with their own location long enough for the memo to rest (more than a window of
    4,096 ops, few found), then recurring ops after the rest of 65,536 ops: it looks again."""
    if producers == "pure":
        pytest.skip("the memo is the compiled loop's")
    b = TraceBuilder(ascend_machine())
    g, u = b.buffer("g", (4, 8), "float16", "GM"), b.buffer("u", (2, 4, 8), "float16", "UB")
    for k in range(72_000):
        recurring = k >= 70_000 or k % 500 == 0
        b.op("tile.copy", "MTE2", 3, [b.whole(g), b.slot(u, k % 2)],
             loc=f"again:{k % 3}:1" if recurring else None)
    assert_same_compiled(b.build())


@dataclass(slots=True)
class _OtherOp(TraceOp):
    """A TraceOp subclass: the compiled loop reads its fields with getattr, not from slots."""


@pytest.mark.parametrize("trace", [ascend_gemm(5), cuda_pipeline(5), amd_lds_gemm(4),
                                   amd_lds_gemm(4, local_barrier=False)],
                         ids=lambda t: t.machine.name)
def test_ops_of_a_trace_op_subclass_compile_identically(trace):
    for ops in trace.programs.values():
        ops[1::2] = [_OtherOp(**{f.name: getattr(op, f.name) for f in fields(TraceOp)})
                     for op in ops[1::2]]
    assert_same_compiled(trace)


@pytest.mark.parametrize("machine", [ascend_machine, amd_machine], ids=["one group", "groups"])
def test_a_location_whose_operands_stop_repeating_and_start_again(machine):
    """Hundreds of distinct operands at one location (the memo forgets it), then repeats."""
    m = machine()
    b = TraceBuilder(m)
    g = b.buffer("g", (4, 8 * 400), "float16", "GM")
    r = b.buffer("r", (2, 4, 8), "float16", "UB" if m.issuers == ("S",) else "LDS")
    unit = "MTE2" if m.issuers == ("S",) else "SIMD"
    for k in list(range(300)) + [0, 1, 0, 1, 2] * 3:
        b.op("tile.load", unit, 5, [b.tile(g, (0, 8 * k), (4, 8)), b.slot(r, k % 2)], loc="l:1:1")
    assert_same_compiled(b.build(replicate=m.issuers != ("S",)))


# ---------------------------------------------------------------------- streamed lowering


@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_streamed_examples_are_identical(example):
    target = load_target(next(e.target for e in EXAMPLES if e.name == example))
    assert_same_streamed(parse_text(example_path(example).read_text(), f"{example}.mlir"), target)
    assert_same_streamed(parse_text(scaled(example, 40), f"{example}.mlir"), target)


def test_fused_softmax_spans_are_counted_in_replayed_runs():
    """Fused spans executed (``sim``'s ``fused_spans``) are the same when iterations are replayed
    whole periods at a time."""
    spec = next(e for e in EXAMPLES if e.name == "ascend_softmax")
    target = load_target(spec.target)
    module = parse_text(scaled("ascend_softmax", 60), "ascend_softmax.mlir")
    run_pipeline(module, parse_pass_pipeline("fuse-tiles,insert-sync"), TileContext(target))
    assert assert_same_streamed(module, target) > 30
    assert streamed_fingerprint(module, target)[1]["spans"] >= 60  # a span per row block


def test_streamed_synchronized_gemms_are_identical_and_replayed():
    for name in ("ascend_gemm", "cuda_gemm", "amd_gemm"):
        spec = next(e for e in EXAMPLES if e.name == name)
        target = load_target(spec.target)
        module = parse_text(scaled(name, 50), f"{name}.mlir")
        run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
        assert assert_same_streamed(module, target) > 30
        if native.use(native.repeat) is not None and native.use(native.producers) is not None:
            assert batched_fingerprint(module, target, None, 64)[2] > 1  # several runs of periods


@SETTINGS
@given(ascend_loops())
def test_streamed_random_ascend_loops_are_identical(program):
    assert_same_streamed(_ascend_program(*program), load_target("ascend-a2"))


@SETTINGS
@given(cuda_loops())
def test_streamed_random_cuda_loops_are_identical(program):
    assert_same_streamed(_cuda_program(*program), load_target("cuda-sm80"))


@SETTINGS
@given(amd_loops())
def test_streamed_random_amd_loops_are_identical(program):
    assert_same_streamed(_amd_program(*program), load_target("amd-gfx950"))
