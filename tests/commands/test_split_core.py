"""Split-core targets (ascend-a2-mix) at the CLI and in the routing of ops to cores.

Every command runs on such a target: the simulating ones (sim, equiv, report, tune, demo) on the
whole per-core trace (docs/simulator.md, "Split cores"); verify, insert-sync and emit-cpp too."""

from __future__ import annotations

import re

import pytest

from tilesched.analysis.units import op_route
from tilesched.cli import main
from tilesched.examples import example_path
from tilesched.ir import parse_text
from tilesched.target import load_target

GEMM = str(example_path("ascend_mix_gemm_epilogue_free"))
SYNCED = str(example_path("ascend_mix_gemm_epilogue"))


@pytest.mark.parametrize(("argv", "expected"), [
    (["sim", SYNCED], 0),
    (["sim", SYNCED, "--json"], 0),
    (["sim", GEMM], 1),  # the sync-free twin races
    (["equiv", GEMM, SYNCED], 0),
    (["report", SYNCED, "-o", "{tmp}/r.html"], 0),
    (["report", GEMM, "-p", "insert-sync", "-o", "{tmp}/r.html"], 0),
    (["tune", GEMM, "--budget", "1"], 0),
    # exit 1: the naive insert-sync row is refused (a barrier_all orders one core only)
    (["demo", "--kernel", "ascend_mix_gemm_epilogue_free"], 1),
])
def test_simulating_commands_run_a_target_with_cores(argv, expected, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if argv[0] != "demo":
        argv += ["--target", "ascend-a2-mix"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == expected, out + err
    assert "Traceback" not in err
    if argv[0] == "demo":  # every other pipeline is clean and equivalent
        rows = [line for line in out.splitlines() if "insert-sync" in line and "error" not in line]
        assert len(rows) == 4 and all(" yes " in row for row in rows), out
    if argv[0] == "report":
        html = (tmp_path / "r.html").read_text()
        for core in ("AIC", "AIV0", "AIV1"):  # every core's units are shown
            assert re.search(rf"{core}\.(MTE2|V|FIX)", html), core


def test_opt_runs_insert_sync_and_emit_cpp_on_a_target_with_cores(capsys):
    assert main(["opt", GEMM, "-p", "insert-sync,verify", "--target", "ascend-a2-mix"]) == 0
    out = capsys.readouterr().out
    assert "sync.cross_set" in out and "sync.cross_wait" in out
    assert main(["opt", GEMM, "-p", "insert-sync,emit-cpp", "--target", "ascend-a2-mix"]) == 0
    out = capsys.readouterr().out
    assert "ffts_cross_core_sync(PIPE_FIX" in out and "wait_flag_dev(" in out
    assert "#if defined(__DAV_CUBE__)" in out and "#if defined(__DAV_VEC__)" in out


KERNEL = """
func.func @k(%g: memref<16x16xf32, "GM">, %h: memref<16x16xf32, "GM">) {
  %l1 = memref.alloc() : memref<16x16xf32, "L1">
  %ub = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %l1 : memref<16x16xf32, "GM">, memref<16x16xf32, "L1">
  tile.load %g, %ub : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.exp %ub, %ub {tile.core = "AIV1"} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %ub, %ub {pipe = "AIV1.V"} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.store %ub, %h : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.call %g, %h {callee = "f"} : memref<16x16xf32, "GM">, memref<16x16xf32, "GM">
  func.return
}
"""


def test_ops_are_routed_to_the_core_owning_their_spaces_or_named_by_annotation():
    target = load_target("ascend-a2-mix")
    ops = [op for op in parse_text(KERNEL).walk() if op.name.startswith("tile.")]
    units = [op_route(op, target).unit for op in ops]
    assert units == ["AIC.MTE2", "AIV0.MTE2", "AIV1.V", "AIV1.V", "AIV0.MTE3", "AIC.S"]
    # the same ops on the single-core target keep their plain units (the annotation is ignored)
    single = [op_route(op, load_target("ascend-a2")).unit for op in ops]
    assert single == ["MTE2", "MTE2", "V", "AIV1.V", "MTE3", "S"]
