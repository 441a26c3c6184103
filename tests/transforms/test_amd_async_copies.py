"""AMD async global->LDS copies (issue 27 item 2; DESIGN.md §3, §4), judged by the simulator:
random AMD programs whose global->LDS loads sometimes run on the async queue (``pipe =
"ASYNC0"``) come out of insert-sync race-free and equivalent (it adds the commit / wait groups
and the local barriers after the waits); warp-pipelined loops with async copies and a
``wait_group`` at every stage boundary come out race-free and equivalent; without the waits the
simulator finds the race. Both engines agree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tilesched.ir import parse_text, print_module
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

sys.path.insert(0, str(Path(__file__).parent))
from warp_programs import OPS, lds_programs, op_lines, pipeline_lines, program  # noqa: E402

SETTINGS = settings(max_examples=int(os.environ.get("TILESCHED_AMD_ASYNC_EXAMPLES", "25")),
                    deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ASYNC_LOAD = ('tile.load {g}, {l} {{pipe = "ASYNC0"}} : {G}, {L}', ["g", "l"])
ASYNC_OPS = OPS + [ASYNC_LOAD, ASYNC_LOAD]
# warp-pipeline places no commits: the program closes each copy's group (Triton's
# async_commit_group after each async_copy_global_to_local)
COMMITTED_LOAD = (ASYNC_LOAD[0] + "\nsync.commit_group 0", ASYNC_LOAD[1])
COMMITTED_OPS = OPS + [COMMITTED_LOAD, COMMITTED_LOAD]
WAIT = "sync.wait_group 0 {pending = 0 : i64}"


def _run(text: str, pipeline: str, target_name: str) -> str:
    module = parse_text(text, "random.mlir")
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(load_target(target_name)))
    return print_module(module)


def _judge(text: str, out: str, target_name: str):
    target = load_target(target_name)
    result = simulate(lower_module(parse_text(out, "out.mlir"), target))
    verdict = equivalent(lower_module(parse_text(text, "in.mlir"), target),
                         lower_module(parse_text(out, "out.mlir"), target))
    return result, verdict


def async_programs():
    """Ops and loops (0..3 trips) over global, LDS (buffers and double-buffer slots) and
    registers, some global->LDS loads async; no sync."""
    return lds_programs(ASYNC_OPS)


@st.composite
def async_warp_programs(draw) -> str:
    """One warp pipeline (loop or flat, 2..3 stages) with async copies, a wait_group after every
    border (so at every stage boundary, the wrap-around included) and one at the end."""
    counter = [0]
    lines = draw(pipeline_lines(counter, 0, draw(st.integers(2, 3)), COMMITTED_OPS))
    # no LDS access after an async copy within its stage: only a wait completes the copy, and
    # waits may only sit between stages (such a stage is the program's error, not the pass's)
    in_flight = False
    for line in lines:
        text = line.strip()
        if "tile.stage_border" in text:
            in_flight = False
        elif '"LDS"' in text and text.startswith("tile.") and not text.startswith("tile.slot"):
            assume(not in_flight)
        in_flight = in_flight or "ASYNC0" in text
    out = []
    for line in lines:
        out.append(line)
        if "tile.stage_border" in line:
            indent = line[:len(line) - len(line.lstrip())]
            out.append(indent + WAIT)
    return program(out + [WAIT] + draw(op_lines(None, counter)))


@SETTINGS
@given(async_programs(), st.sampled_from(["amd-gfx950", "amd-gfx1250"]))
def test_insert_sync_async_copies_race_free_and_equivalent(text, target):
    out = _run(text, "insert-sync", target)
    result, verdict = _judge(text, out, target)
    assert result.ok, (text, out, result.races[:2], result.deadlock, result.violations)
    assert verdict.equivalent, (text, out, verdict.mismatches, verdict.problems)


@SETTINGS
@given(async_warp_programs(), st.sampled_from(["amd-gfx950", "amd-gfx1250"]))
def test_warp_pipeline_with_async_copies_race_free_and_equivalent(text, target):
    out = _run(text, "warp-pipeline{on-conflict=plain}", target)
    assert "tile.stage_border" not in out
    result, verdict = _judge(text, out, target)
    assert result.ok, (text, out, result.races[:2], result.deadlock, result.violations)
    assert verdict.equivalent, (text, out, verdict.mismatches, verdict.problems)


LOOP = """func.func @k(%n: index, %g: memref<64x64xf16, "global">, %acc: memref<64x64xf32, "local">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lds = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s0 = tile.slot %lds[%c0] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
  tile.load %g, %s0 {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
    %nx = arith.remui %j, %c2 : index
    %cur = arith.remui %i, %c2 : index
    %sn = tile.slot %lds[%nx] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    %sc = tile.slot %lds[%cur] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    tile.load %g, %sn {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.copy %sc, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.matmul %r, %r, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
  }
  func.return
}
"""


@pytest.mark.parametrize("pure", ["", "1"])
def test_engines_agree_each_group_has_its_own_queue(pure, monkeypatch):
    """Each issuer group's copies are waited by its own wait_group: dropping the waits races
    within a group, dropping the barriers races across groups; both engines say so."""
    if pure:
        monkeypatch.setenv("TILESCHED_PURE_PYTHON", pure)
    else:
        monkeypatch.delenv("TILESCHED_PURE_PYTHON", raising=False)
    target = load_target("amd-gfx950")
    out = _run(LOOP, "insert-sync", "amd-gfx950")
    args = {"n": 4}
    ok = simulate(lower_module(parse_text(out, "o.mlir"), target, args=args))
    assert ok.ok, ok.races[:2]
    no_wait = "\n".join(line for line in out.splitlines() if "wait_group" not in line)
    raced = simulate(lower_module(parse_text(no_wait, "w.mlir"), target, args=args))
    assert raced.races and all(_group(r.first) == _group(r.second) for r in raced.races), \
        raced.races
    no_barrier = "\n".join(line for line in out.splitlines() if "sync.barrier" not in line)
    crossed = simulate(lower_module(parse_text(no_barrier, "b.mlir"), target, args=args))
    assert any(_group(r.first) != _group(r.second) for r in crossed.races), crossed.races


def _group(side) -> str:
    return side.unit.rsplit("@", 1)[-1]
