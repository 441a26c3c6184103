"""Issue 28: the second round of hostile inputs. Each test cites the audit's case (the issue's
"Why") and asserts the behaviour the issue asks for. (Verifier cases are lit tests:
tests/lit/verify/unsupported_element_type.mlir, capacity_per_function.mlir, stage_priority.mlir,
last_use_wrong.mlir.)
"""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

from tilesched.cli import main
from tilesched.input_files import DEFAULT_MAX_INPUT_BYTES
from tilesched.ir import parse_text
from tilesched.sim.functional import equivalent, run_reference
from tilesched.sim.lowering.lower import lower_module
from tilesched.target import load_target

ROOT = pathlib.Path(__file__).resolve().parents[2]
GEMM = ROOT / "examples" / "ascend_gemm.mlir"
GM = 'memref<16x16xf32, "GM">'
UB = 'memref<16x16xf32, "UB">'


def run(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return code, captured.out, captured.err


def kernel(tmp_path, body: str, args: str = f"%a: {GM}, %u: {UB}", name: str = "k.mlir") -> str:
    path = tmp_path / name
    path.write_text(f"func.func @k({args}) {{\n{body}\n  func.return\n}}\n")
    return str(path)


def cli(*argv: str, stdin=None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The installed entry point in a fresh process (for devices and pipes)."""
    return subprocess.run([sys.executable, "-m", "tilesched.cli", *argv], stdin=stdin,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


# ----------------------------------------------------------------------------- §2 bounded input

@pytest.mark.parametrize(("command", "device"), [("sim", "/dev/zero"), ("opt", "/dev/urandom")])
def test_devices_end_with_exit_2_in_seconds(command, device):
    """Audit: ``tilesched sim /dev/zero`` or ``opt /dev/urandom`` read 3.4 GB, then MemoryError."""
    start = time.monotonic()
    done = cli(command, device)
    assert done.returncode == 2
    assert "is not text: a NUL byte" in done.stderr or "not UTF-8 text (byte" in done.stderr
    assert time.monotonic() - start < 30  # the process start dominates; the read stops at once


def test_an_endless_pipe_ends_at_the_input_limit():
    """Audit: endless pipes read without limit. ``yes`` | opt - stops at --max-input-bytes."""
    producer = subprocess.Popen(["yes", "// a comment line"], stdout=subprocess.PIPE)
    try:
        done = cli("opt", "-", "--max-input-bytes", "1M", stdin=producer.stdout)
    finally:
        producer.kill()
        producer.wait()
    assert done.returncode == 2
    assert "cannot read '<stdin>': more than the limit of 1,048,576 bytes (--max-input-bytes)" \
        in done.stderr


def test_a_file_over_the_input_limit_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "big.mlir"
    path.write_text("// x\n" * 1000)
    code, _, err = run(["opt", str(path), "--max-input-bytes", "1K"], capsys)
    assert code == 2 and "5,000 bytes, more than the limit of 1,024 (--max-input-bytes)" in err
    assert DEFAULT_MAX_INPUT_BYTES == 64 << 20  # docs/cli.md states it


def test_a_utf8_byte_order_mark_is_accepted(tmp_path, capsys):
    """Audit: a file starting with a UTF-8 byte-order mark is rejected."""
    path = tmp_path / "bom.mlir"
    path.write_bytes(b"\xef\xbb\xbf" + GEMM.read_bytes())
    code, out, _ = run(["opt", str(path)], capsys)
    assert code == 0 and "func.func @ascend_gemm" in out
    code, _, _ = run(["sim", str(path)], capsys)
    assert code in (0, 1)


# ------------------------------------------------------------------- §1 target files

def test_deeply_nested_target_files_are_located_errors(tmp_path, capsys):
    """Audit: a deeply nested target TOML was a RecursionError in tomllib (exit 3)."""
    toml = tmp_path / "deep.toml"
    toml.write_text('name = "x"\n' + "a = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = run(["targets", str(toml)], capsys)
    assert code == 2
    assert f"{toml}:2:37: error: arrays or inline tables nested deeper than 32 levels" in err


def test_oversized_target_files_are_refused(tmp_path, capsys):
    toml = tmp_path / "big.toml"
    toml.write_text("# padding\n" * 200_000)
    code, _, err = run(["targets", str(toml)], capsys)
    assert code == 2 and "more than a target file may have (1,048,576)" in err


# ----------------------------------------------------------------------- §8 output paths, files

def test_an_output_path_ending_in_a_slash_is_refused(tmp_path, capsys):
    """Audit: ``-o out.html/`` wrote ``out.html``."""
    out = tmp_path / "out.html"
    code, _, err = run(["report", str(GEMM), "-o", f"{out}/"], capsys)
    assert code == 2 and "a path ending in '/' names a directory" in err
    assert not out.exists()


def test_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    """Audit: ``-o -`` wrote a file named ``-``."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["opt", str(GEMM), "-o", "-"], capsys)
    assert code == 0 and "func.func @ascend_gemm" in out and not (tmp_path / "-").exists()
    code, out, err = run(["sim", str(GEMM), "--trace", "-"], capsys)
    assert out.startswith('{"traceEvents": [') and "tilesched sim" in err  # summary on stderr
    code, out, err = run(["report", str(GEMM), "-o", "-"], capsys)
    assert out.startswith("<!DOCTYPE html>") and "wrote standard output" in err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("option", [["opt", "{in}", "-o"], ["sim", "{in}", "--trace"],
                                    ["report", "{in}", "-o"]])
def test_an_output_that_is_a_fifo_is_refused(tmp_path, capsys, option):
    """Audit: an output that is a FIFO blocks forever."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = run([a.format(**{"in": GEMM}) for a in option] + [str(fifo)], capsys)
    assert code == 2 and "it is a FIFO (named pipe)" in err


def test_no_function_to_simulate_names_the_file(tmp_path, capsys):
    """Audit: ``error: no function with a body to simulate`` names no file."""
    path = tmp_path / "decl.mlir"
    path.write_text("func.func private @f()\n")
    for argv in (["sim", str(path)], ["equiv", str(path), str(path)]):
        code, _, err = run(argv, capsys)
        assert code == 2 and f"{path}:1:1: error: no function with a body to simulate" in err


def test_equiv_refuses_standard_input_twice(capsys, monkeypatch):
    """Audit: ``equiv - -`` reads standard input twice."""
    monkeypatch.setattr("sys.stdin", io.StringIO(GEMM.read_text()))
    code, _, err = run(["equiv", "-", "-"], capsys)
    assert code == 2 and "A and B are both standard input ('-')" in err


def test_tune_reads_standard_input(capsys, monkeypatch):
    """Audit: ``tune`` cannot read standard input."""
    monkeypatch.setattr("sys.stdin", io.StringIO(GEMM.read_text()))
    code, out, _ = run(["tune", "-", "--budget", "1", "--jobs", "1"], capsys)
    assert code == 0 and "<stdin> on ascend-a2: best" in out


def test_a_missing_native_core_is_said_once_at_import(tmp_path):
    """Audit: the pure-Python fallback warning was visible only with ``pip install -v``. A copy
    of the package without its compiled modules warns once on import."""
    import shutil

    copy = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "tilesched", copy / "tilesched",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "TILESCHED_PURE_PYTHON"}
    done = subprocess.run([sys.executable, "-c", "import tilesched.sim, tilesched.sim.engine.engine; "
                           "import tilesched.sim"], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(copy)}, timeout=120)
    assert done.returncode == 0
    assert done.stderr.count("tilesched: warning: the compiled simulator core was not built") == 1
    quiet = subprocess.run([sys.executable, "-c", "import tilesched.sim"], capture_output=True,
                           text=True, timeout=120,
                           env={**env, "PYTHONPATH": str(copy), "TILESCHED_PURE_PYTHON": "1"})
    assert quiet.stderr == ""


# ------------------------------------------------------------------------------ §4 --max-ops

def _loops(tmp_path, depth: int, trips: int, body: int = 1) -> str:
    lines = ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             f"  %t = arith.constant {trips} : index"]
    lines += [f"  scf.for %i{d} = %c0 to %t step %c1 {{" for d in range(depth)]
    lines += [f"  tile.load %a, %u : {GM}, {UB}"] * body + ["  }"] * depth
    return kernel(tmp_path, "\n".join(lines))


def test_nested_trip_counts_are_multiplied_and_refused_before_the_run(tmp_path, capsys):
    """Audit: 40 nested 2-trip loops ran 266 s before --max-ops stopped them, and the message
    said "about 999,974 ops, more than --max-ops 2,000,000"."""
    path = _loops(tmp_path, 40, 2)
    start = time.process_time()  # CPU time: the machine running the tests may be loaded
    code, _, err = run(["sim", path], capsys)
    assert time.process_time() - start < 2
    assert code == 2
    assert ("k.mlir:5:3: error: this loop runs 2 iterations (with the 39 loops nested in it, trip "
            "counts multiplied): simulating it would take at least 1,099,511,627,776 ops, more "
            "than --max-ops 2,000,000") in err


@pytest.mark.parametrize("full", [[], ["--full"]])
@pytest.mark.parametrize(("depth", "trips", "body"), [(0, 1, 25), (1, 5, 5), (2, 5, 1)])
def test_max_ops_counts_exactly(tmp_path, capsys, full, depth, trips, body):
    """Audit: a 25-op run needed --max-ops 27, and "about 24 ops, more than --max-ops 26" named
    no loop. 25 ops pass with --max-ops 25 and are refused with 24, naming the loop."""
    path = _loops(tmp_path, depth, trips, body)
    assert run(["sim", path, "--max-ops", "25", *full], capsys)[0] == 0
    code, _, err = run(["sim", path, "--max-ops", "24", *full], capsys)
    assert code == 2 and "25 ops, more than --max-ops 24" in err
    if depth:
        assert "k.mlir:5:3: error: this loop runs 5 iterations" in err


# ------------------------------------------------------------------------ §3 bounded memory

@pytest.mark.parametrize("command", [["report", "{f}", "-o", "{d}/r.html"], ["equiv", "{f}", "{f}"],
                                     ["sim", "{f}", "--trace", "{d}/t.json", "--max-ops", "1e9"]])
def test_runs_that_would_exceed_the_memory_limit_are_refused_before_they_start(
        tmp_path, capsys, command):
    """Audit: report on a 6M-op loop ran 355 s to 5.4 GB; equiv on 3M ops took 4.2 GB; sim
    --full --trace at 1.98M ops 2.2 GB. Refused in seconds, naming the loop and the size."""
    path = _loops(tmp_path, 2, 2000)  # 4M ops
    start = time.monotonic()
    code, _, err = run([a.format(f=path, d=tmp_path) for a in command], capsys)
    assert time.monotonic() - start < 10
    assert code == 2 and "k.mlir:5:3: error: this loop runs 2,000 iterations (with the 1 loop(s) " \
        "nested in it)" in err
    assert "keeps every op in memory, about" in err and "more than --max-memory 1.0 GiB" in err
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "t.json").exists()


def test_the_memory_limit_can_be_raised_and_lowered(tmp_path, capsys):
    path = _loops(tmp_path, 1, 100)
    code, _, err = run(["equiv", path, path, "--max-memory", "100K"], capsys)
    assert code == 2 and "k.mlir:5:3: error: this loop runs 100 iterations: equiv keeps every " \
        "op in memory, about 100.0 KiB for its 100 ops (the whole run: 200.0 KiB for 200), more " \
        "than --max-memory 100.0 KiB" in err
    assert run(["equiv", path, path, "--max-memory", "1M"], capsys)[0] == 0


# ------------------------------------------------------------------------- §7 --arg ranges

@pytest.mark.parametrize(("kind", "value", "message"), [
    ("i1", "2", "2 is out of range for i1 (0 .. 1)"),
    ("i8", "1000", "1000 is out of range for i8 (-128 .. 255)"),
    ("f16", "1e10", "10000000000.0 is out of range for f16 (largest finite value 65504)"),
    ("ui8", "-1", "-1 is out of range for ui8 (0 .. 255)"),
    ("si8", "128", "128 is out of range for si8 (-128 .. 127)"),
    ("index", str(1 << 63), f"{1 << 63} is out of range for index"),
])
def test_arg_values_are_checked_against_their_types(tmp_path, capsys, kind, value, message):
    """Audit: ``--arg`` accepts 2 for an i1, 1000 for an i8, 1e10 for an f16."""
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}", args=f"%a: {GM}, %u: {UB}, %s: {kind}")
    for command in (["sim", path], ["equiv", path, path]):
        code, _, err = run([*command, "--arg", f"s={value}"], capsys)
        assert code == 2 and "k.mlir:1:1: error: --arg s=" in err and message in err


@pytest.mark.parametrize(("kind", "value"), [("i1", "1"), ("i8", "255"), ("i8", "-128"),
                                             ("f16", "65504"), ("f32", "inf"), ("ui8", "255")])
def test_arg_values_at_the_ends_of_their_range_are_accepted(tmp_path, capsys, kind, value):
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}", args=f"%a: {GM}, %u: {UB}, %s: {kind}")
    assert run(["sim", path, "--arg", f"s={value}"], capsys)[0] == 0


# ------------------------------------------------------------------- §6 last-use in equiv

CHAIN = """func.func @chain(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b FLAGS : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %b, %a, %d ADD : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
"""


def _trace(exp: str = "", add: str = "", synced: bool = False):
    """CHAIN with ``tile.last_use`` flags on its exp and add (synchronized by insert-sync when
    ``synced``), lowered without the verifier (which refuses a wrong flag:
    tests/lit/verify/last_use_wrong.mlir)."""
    from tilesched.transforms.pass_base import TileContext
    from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

    text = CHAIN.replace("FLAGS", f"{{tile.last_use = array<i1: {exp}>}}" if exp else "")
    text = text.replace("ADD", f"{{tile.last_use = array<i1: {add}>}}" if add else "")
    module, target = parse_text(text, "chain.mlir"), load_target("ascend-a2")
    if synced:
        run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target=target))
    return lower_module(module, target)


def test_the_functional_mode_poisons_what_last_use_declares_dead():
    """Audit: ``equiv`` ignores last-use flags, so a wrong one passes. A buffer flagged dead
    becomes undefined (NaN) after the op: the wrong flag on %a (tile.add reads it again) makes
    y differ, in the reference and in the concurrent run; the true flags (both reads of
    tile.add are last uses) change nothing."""
    plain = _trace()
    assert np.isnan(run_reference(_trace(exp="true, false")).arguments()[1][1]).all()
    wrong = _trace(exp="true, false", synced=True)
    verdict = equivalent(plain, wrong)
    assert not verdict.equivalent and [m.buffer for m in verdict.mismatches] == ["y"]
    assert verdict.candidate.ok  # synchronized: the difference is the flag's alone
    right = _trace(exp="false, false", add="true, true, false", synced=True)
    assert equivalent(plain, right).equivalent
    assert equivalent(_trace(exp="false, false", add="true, true, false"), right).equivalent


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_report_and_equiv_runs_show_their_phase_on_a_terminal(monkeypatch):
    """Audit: no progress shown on the long runs of report and equiv. After PHASE_DELAY a
    spinner names the phase; none off a terminal or with --json."""
    from tilesched.report import progress

    monkeypatch.setattr(progress, "PHASE_DELAY", 0.01)
    terminal = _Terminal()
    with progress.PhaseProgress("tilesched equiv", stream=terminal) as shown:
        shown.phase("simulating B")
        time.sleep(0.5)
    assert "tilesched equiv:" in terminal.getvalue() and "simulating B" in terminal.getvalue()
    for stream, json_output in ((io.StringIO(), False), (_Terminal(), True)):
        with progress.PhaseProgress("tilesched report", json_output, stream=stream) as shown:
            shown.phase("building the page")
            time.sleep(0.1)
        assert stream.getvalue() == ""
