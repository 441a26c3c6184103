"""`tilesched tune`: the contract's JSON, a best pipeline that `opt -p` + `sim` reproduce, bad
input located with exit 2, exit 1 when no candidate is correct, and Ray (a real local runtime)
giving the same result as the process pool."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from tilesched.cli import main
from tilesched.examples import example_path

SOFTMAX = str(example_path("ascend_softmax"))
# On an AMD target a lone cond_barrier leaves the issuer groups' barriers unbalanced, and no
# pass removes a barrier the kernel wrote: no candidate can be correct.
STUCK = """builtin.module {
  func.func @stuck(%a: memref<32x32xf16, "global">, %b: memref<32x32xf16, "global">) {
    %t = memref.alloc() : memref<32x32xf16, "LDS">
    tile.load %a, %t : memref<32x32xf16, "global">, memref<32x32xf16, "LDS">
    "sync.cond_barrier"() {group = "high"} : () -> ()
    tile.store %t, %b : memref<32x32xf16, "LDS">, memref<32x32xf16, "global">
    func.return
  }
}
"""


def tune_json(capsys, *argv) -> tuple[int, list[dict]]:
    code = main(["tune", *argv, "--json"])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.strip()]


def test_json_has_the_contract_shape_and_the_best_reproduces(capsys, tmp_path):
    code, [report] = tune_json(capsys, SOFTMAX, "--budget", "8", "--jobs", "1")
    assert code == 0
    assert set(report) >= {"best", "baseline", "trials"}
    # ascend-a2 gives a clock: time_us beside each cycles (docs/targets.md, frequency_hz)
    assert set(report["best"]) == {"pipeline", "cycles", "time_us", "bound"}
    assert set(report["baseline"]) == {"pipeline", "cycles", "time_us"}
    for side in ("best", "baseline"):
        assert report[side]["time_us"] == pytest.approx(report[side]["cycles"] / 1850, abs=1e-4)
    assert report["trials"] == 8
    assert report["baseline"]["pipeline"] == \
        "modulo-schedule,software-pipeline,reorder-events,insert-sync"
    best = report["best"]
    assert best["cycles"] <= report["baseline"]["cycles"]
    out = tmp_path / "best.mlir"
    assert main(["opt", SOFTMAX, "-p", best["pipeline"], "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["sim", str(out), "--json"]) == 0
    simulated = json.loads(capsys.readouterr().out)
    assert (simulated["cycles"], simulated["bound"]) == (best["cycles"], best["bound"])
    assert main(["equiv", SOFTMAX, str(out)]) == 0


def test_text_output_names_the_best_pipeline_and_its_cycles(capsys):
    assert main(["tune", SOFTMAX, "--budget", "4", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    # the cycles and, ascend-a2 giving a clock, the microseconds at 1.85 GHz
    found = re.search(r"baseline \(default pipeline\) (\d+) cycles = ([\d.]+) us", out)
    assert "best" in out and found, out
    assert float(found.group(2)) == round(int(found.group(1)) / 1850, 3)
    assert f"tilesched opt {SOFTMAX} --target ascend-a2 -p" in out


def test_no_correct_candidate_is_reported_with_exit_1(capsys, tmp_path):
    kernel = tmp_path / "stuck.mlir"
    kernel.write_text(STUCK)
    code, [report] = tune_json(capsys, str(kernel), "--target", "amd-gfx950", "--jobs", "1")
    assert code == 1 and report["best"] is None and report["baseline"]["cycles"] is None
    assert main(["tune", str(kernel), "--target", "amd-gfx950", "--jobs", "1"]) == 1
    assert "no candidate is correct (1 violation; e.g. unbalanced-barriers" in \
        capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["nothere.mlir"], "cannot read kernel 'nothere.mlir': no such file"),
    ([SOFTMAX, "--target", "tpu-v9"], "error: unknown target 'tpu-v9'"),
    ([SOFTMAX, "--target", "cuda-sm80"], "ascend_softmax.mlir:11:3: error: unknown memory space"),
    ([SOFTMAX, "--results", "out.json"], "must end in .parquet or .csv"),
    ([SOFTMAX, "--plot", SOFTMAX], "--plot '" + SOFTMAX + "' is the input file"),
    ([SOFTMAX, "--results", SOFTMAX], "is the input file"),
    ([SOFTMAX, "--budget", "0"], "--budget must be >= 1"),
    ([SOFTMAX, "--ray", "127.0.0.1:6379", "--jobs", "2"], "a cluster (--ray 127.0.0.1:6379)"),
])
def test_bad_input_exits_2_with_a_message(capsys, argv, message):
    assert main(["tune", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_results_file_from_another_space_is_refused(capsys, tmp_path):
    kernel = tmp_path / "softmax.mlir"
    shutil.copy(SOFTMAX, kernel)
    results = tmp_path / "trials.csv"
    assert main(["tune", str(kernel), "--budget", "3", "--jobs", "1", "--results", str(results),
                 "--json"]) == 0
    kernel.write_text(kernel.read_text().replace("%c4 = arith.constant 4", "%c4 = arith.constant 2"))
    before = results.read_bytes()
    assert main(["tune", str(kernel), "--budget", "3", "--jobs", "1",
                 "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert f"{results}: error: results file holds trials of {kernel} on ascend-a2 from another " \
           "search space" in err
    assert results.read_bytes() == before  # never mixed, never overwritten


def test_a_file_that_is_not_a_results_table_is_refused(capsys, tmp_path):
    results = tmp_path / "notes.csv"
    results.write_text("name,score\nx,1\n")
    assert main(["tune", SOFTMAX, "--jobs", "1", "--results", str(results)]) == 2
    assert "not a tilesched tune results file" in capsys.readouterr().err


def test_ray_missing_is_a_clear_message(capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    assert main(["tune", SOFTMAX, "--ray"]) == 2
    assert "pip install 'tilesched[ray]'" in capsys.readouterr().err


def test_plot_is_a_png(capsys, tmp_path):
    plot = tmp_path / "tune.png"
    assert main(["tune", SOFTMAX, "--budget", "3", "--jobs", "1", "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _tune_subprocess(*argv: str, timeout: float) -> dict:
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    done = subprocess.run([sys.executable, "-m", "tilesched.cli", "tune", *argv, "--json"],
                          capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=pathlib.Path(SOFTMAX).parent)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ray_and_the_process_pool_find_the_same_best():
    """A real local Ray runtime with two CPUs (bounded by the subprocess timeout)."""
    argv = ("ascend_softmax.mlir", "--budget", "12", "--seed", "7", "--batch", "4")
    pooled = _tune_subprocess(*argv, "--jobs", "2", timeout=120)
    on_ray = _tune_subprocess(*argv, "--ray", "--jobs", "2", timeout=180)
    assert on_ray == pooled
