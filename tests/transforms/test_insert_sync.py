"""insert-sync is judged by the simulator: random programs with loops and ifs come out free of
races, deadlocks and sync violations, and compute what the unsynchronized program means."""

from __future__ import annotations

import pathlib
import re
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.examples import EXAMPLES, SPLIT_CORE_EXAMPLES, example_path
from tilesched.ir import parse_text, print_module
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.target.loader import BUILTIN_DIR
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

T16 = 'memref<16x16xf16, "{}">'
T32 = 'memref<16x16xf32, "{}">'

# Op templates per target: (text with {a} {b} {c} placeholders for buffers, buffer kinds).
ASCEND_OPS = [
    ("tile.load {g16}, {l1} : {G16}, {L1}", ["g16", "l1"]),
    ("tile.load {g32}, {ub} : {G32}, {UB}", ["g32", "ub"]),
    ("tile.copy {l1}, {l0a} : {L1}, {L0A}", ["l1", "l0a"]),
    ("tile.copy {l1}, {l0b} : {L1}, {L0B}", ["l1", "l0b"]),
    ("tile.matmul {l0a}, {l0b}, {l0c} : {L0A}, {L0B}, {L0C}", ["l0a", "l0b", "l0c"]),
    ("tile.matmul {l0a}, {l0b}, {l0c} {{accumulate}} : {L0A}, {L0B}, {L0C}", ["l0a", "l0b", "l0c"]),
    ("tile.store {l0c}, {o32} : {L0C}, {G32}", ["l0c", "o32"]),
    ("tile.copy {l0c}, {l1f} : {L0C}, {L1F}", ["l0c", "l1f"]),
    ("tile.copy {l1f}, {ub} : {L1F}, {UB}", ["l1f", "ub"]),
    ("tile.exp {ub}, {ub2} : {UB}, {UB}", ["ub", "ub2"]),
    ("tile.add {ub}, {ub2}, {ub3} : {UB}, {UB}, {UB}", ["ub", "ub2", "ub3"]),
    ("tile.relu {ub}, {ub} : {UB}, {UB}", ["ub"]),
    ("tile.store {ub}, {o32} : {UB}, {G32}", ["ub", "o32"]),
]
CUDA_OPS = [
    ("tile.load {g16}, {sh} : {G16}, {SH}", ["g16", "sh"]),
    ("tile.copy {sh}, {r16} : {SH}, {R16}", ["sh", "r16"]),
    ("tile.exp {r16}, {r16b} : {R16}, {R16}", ["r16", "r16b"]),
    ("tile.add {r16}, {r16b}, {sh} : {R16}, {R16}, {SH}", ["r16", "r16b", "sh"]),
    ("tile.store {r16b}, {o16} : {R16}, {G16}", ["r16b", "o16"]),
    ("tile.store {sh}, {o16} : {SH}, {G16}", ["sh", "o16"]),
]

SPACES = {
    "ascend": {"G16": T16.format("GM"), "G32": T32.format("GM"), "L1": T16.format("L1"),
               "L1F": T32.format("L1"), "L0A": T16.format("L0A"), "L0B": T16.format("L0B"),
               "L0C": T32.format("L0C"), "UB": T32.format("UB")},
    "cuda": {"G16": T16.format("global"), "SH": T16.format("shared"), "R16": T16.format("local")},
}
BUFFERS = {
    "ascend": {"l1": ["%l1a", "%l1b"], "l0a": ["%l0a"], "l0b": ["%l0b"], "l0c": ["%l0c"],
               "l1f": ["%l1f"], "ub": ["%ub0", "%ub1", "%ub2"], "ub2": ["%ub0", "%ub1", "%ub2"],
               "ub3": ["%ub0", "%ub1", "%ub2"]},
    "cuda": {"sh": ["%sh0", "%sh1"], "r16": ["%r0", "%r1"], "r16b": ["%r0", "%r1"]},
}
ALLOCS = {
    "ascend": [("%l1a", "L1"), ("%l1b", "L1"), ("%l0a", "L0A"), ("%l0b", "L0B"), ("%l0c", "L0C"),
               ("%l1f", "L1F"), ("%ub0", "UB"), ("%ub1", "UB"), ("%ub2", "UB")],
    "cuda": [("%sh0", "SH"), ("%sh1", "SH"), ("%r0", "R16"), ("%r1", "R16")],
}


@st.composite
def statements(draw, family: str, depth: int = 0, loop_var: str | None = None):
    """A list of MLIR lines: tile ops, loops (0..3 trips) and ifs, nested up to depth 2."""
    templates = ASCEND_OPS if family == "ascend" else CUDA_OPS
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["op"] * 4 + (["for", "if"] if depth < 2 else [])))
        if kind == "op":
            lines.append(_op_line(draw, family, templates, loop_var))
        elif kind == "for":
            var = f"%i{depth}"
            trips = draw(st.integers(0, 3))
            body = draw(statements(family, depth + 1, var))
            lines.append(f"scf.for {var} = %c0 to %c{trips} step %c1 {{")
            lines += ["  " + line for line in body] + ["}"]
        else:
            cond = "%true" if draw(st.booleans()) else "%false"
            then = draw(statements(family, depth + 1, loop_var))
            lines.append(f"scf.if {cond} {{")
            lines += ["  " + line for line in then]
            if draw(st.booleans()):
                lines.append("} else {")
                lines += ["  " + line for line in draw(statements(family, depth + 1, loop_var))]
            lines.append("}")
    return lines


_counter = [0]


def _op_line(draw, family, templates, loop_var):
    text, kinds = draw(st.sampled_from(templates))
    values = dict(SPACES[family])
    lines = []
    for kind in kinds:
        if kind in ("g16", "g32", "o32", "o16"):
            _counter[0] += 1
            name = f"%v{_counter[0]}"
            index = loop_var if (loop_var and draw(st.booleans())) else f"%c{draw(st.integers(0, 3))}"
            source = {"g16": "%x16", "g32": "%x32", "o32": "%y32", "o16": "%y16"}[kind]
            elem = "f16" if kind in ("g16", "o16") else "f32"
            space = "GM" if family == "ascend" else "global"
            lines.append(f"{name} = tile.slot {source}[{index}] : memref<4x16x16x{elem}, \"{space}\"> "
                         f"-> memref<16x16x{elem}, \"{space}\">")
            values[kind] = name
        else:
            values[kind] = draw(st.sampled_from(BUFFERS[family][kind]))
    return "\n".join(lines + [text.format(**values)])


def _program(family: str, body: list[str]) -> str:
    space = "GM" if family == "ascend" else "global"
    args = (f'%x16: memref<4x16x16xf16, "{space}">, %x32: memref<4x16x16xf32, "{space}">, '
            f'%y32: memref<4x16x16xf32, "{space}">, %y16: memref<4x16x16xf16, "{space}">')
    header = [f"func.func @k({args}) {{", "  %true = arith.constant true", "  %false = arith.constant false"]
    header += [f"  %c{i} = arith.constant {i} : index" for i in range(4)]
    header += [f"  {name} = memref.alloc() : {SPACES[family][kind]}" for name, kind in ALLOCS[family]]
    lines = header + ["  " + line for chunk in body for line in chunk.split("\n")]
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def _two_ids_target() -> str:
    """ascend-a2 with 2 event ids per pair: makes id exhaustion (and its fallback) common."""
    source = pathlib.Path(BUILTIN_DIR / "ascend-a2.toml").read_text()
    path = pathlib.Path(tempfile.gettempdir()) / "tilesched-ascend-2ids.toml"
    path.write_text(source.replace("event_limit = 8", "event_limit = 2"))
    return str(path)


def _check(text: str, target_name: str, pipeline: str = "insert-sync", args=None) -> str:
    target = load_target(_two_ids_target() if target_name == "two-ids" else target_name)
    original = parse_text(text, "random.mlir")
    synced = parse_text(text, "random.mlir")
    run_pipeline(synced, parse_pass_pipeline(pipeline), TileContext(target))
    synced_text = print_module(synced)
    result = simulate(lower_module(parse_text(synced_text, "synced.mlir"), target, args=args))
    assert result.ok, (synced_text, result.races, result.deadlock, result.violations)
    verdict = equivalent(lower_module(original, target, args=args),
                         lower_module(synced, target, args=args))
    assert verdict.equivalent, (synced_text, verdict.mismatches, verdict.problems)
    return synced_text


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements("ascend"), st.sampled_from(["ascend-a2", "ascend-910a", "two-ids"]),
       st.sampled_from(["insert-sync", "insert-sync{naive=true}"]))
def test_random_ascend_programs_are_race_free_and_equivalent(body, target, pipeline):
    _check(_program("ascend", body), target, pipeline)


@pytest.mark.parametrize("pipeline", ["insert-sync", "insert-sync{naive=true}"])
@pytest.mark.parametrize("target", ["ascend-910a", "two-ids"])
def test_long_straight_line_kernels_run_out_of_ids_safely(pipeline, target):
    """Many consumers per producer: ids run out, waits are drained early, still correct."""
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
    from bench_sync import straight_line_program

    _check(straight_line_program(150, seed=100), target, pipeline)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements("cuda"))
def test_random_cuda_programs_are_race_free_and_equivalent(body):
    _check(_program("cuda", body), "cuda-sm80")


@st.composite
def amd_programs(draw) -> str:
    """Straight-line code and loops of LDS traffic: LDS -> register copies with consumers in
    the same group (registers) and LDS tiles read and written by both groups."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from warp_programs import lds_programs

    return draw(lds_programs())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(amd_programs(), st.sampled_from(["amd-gfx950", "amd-gfx1250"]))
def test_random_amd_programs_are_race_free_and_equivalent(text, target):
    """DESIGN.md §4: a group's own LDS results need no barrier, other groups' LDS writes do."""
    _check(text, target)


@pytest.mark.parametrize("bounds", ["%c0 to %c0", "%c0 to %c1"])
def test_a_loop_that_may_commit_no_group_does_not_count_as_one(bounds):
    """The loop between the copy into sh1 and its consumer may run zero times: the wait
    must not count on its groups (found by random exploration: pending = 1 raced)."""
    load = ('%v{n} = tile.slot %x16[%c0] : memref<4x16x16xf16, "global"> -> '
            'memref<16x16xf16, "global">\ntile.load %v{n}, %{dst} : memref<16x16xf16, "global">, '
            'memref<16x16xf16, "shared">')
    body = [load.format(n=1, dst="sh1"), f"scf.for %i0 = {bounds} step %c1 {{",
            "  " + load.format(n=2, dst="sh0").replace("\n", "\n  "), "}",
            'tile.add %r0, %r1, %sh1 : memref<16x16xf16, "local">, memref<16x16xf16, "local">, '
            'memref<16x16xf16, "shared">']
    _check(_program("cuda", body), "cuda-sm80")


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES + SPLIT_CORE_EXAMPLES])
def test_examples_are_race_free_and_equivalent_after_insert_sync(name):
    example = next(e for e in EXAMPLES + SPLIT_CORE_EXAMPLES if e.name == name)
    _check(pathlib.Path(example_path(name)).read_text(), example.target)


def test_naive_baseline_is_also_correct():
    text = pathlib.Path(example_path("ascend_gemm")).read_text()
    _check(text, "ascend-a2", "insert-sync{naive=true}")


@pytest.mark.parametrize("refill_first", [False, True])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_multistage_cp_async_loop_waits_once_with_the_largest_pending(stages, refill_first):
    """CUTLASS's S-stage cp.async loop (issue 25 item 6): one wait per iteration, before the
    reader of slot i mod S, with pending S - 2 (S - 1 when the refill comes first: the
    hand-written count, the largest correct); the refill of a slot waits for nothing (same
    in-order queue, its reader already waited); the S - 1 copies before the loop are one group each and wait for nothing before it (the
    loop's wait covers each at the iteration that reads it)."""
    sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
    from bench_sync import cuda_multistage

    target = load_target("cuda-sm80")
    synced = _check(cuda_multistage(stages, hand=False, refill_first=refill_first), "cuda-sm80",
                    args={"n": stages + 1})
    lines = synced.splitlines()
    start = next(k for k, line in enumerate(lines) if "scf.for" in line)
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    end = lines.index(indent + "}", start)
    body = "\n".join(lines[start:end])
    largest = stages - 1 if refill_first else stages - 2
    assert re.findall(r"sync.wait_group 0 \{pending = (\d+)", body) == [str(largest)]
    before = "\n".join(lines[:start])
    assert "sync.wait_group" not in before and before.count("sync.commit_group") == stages - 1
    for trips in (0, 1, 2, stages + 2):
        result = simulate(lower_module(parse_text(synced, "ms.mlir"), target, args={"n": trips}))
        assert result.ok, (trips, result.races, result.deadlock, result.violations)
