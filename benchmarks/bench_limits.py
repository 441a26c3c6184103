"""Peak memory of the commands that keep every simulated op, at their default limits (issue 28).

Section `limits` of BENCHMARKS.md: `python benchmarks/run_all.py limits`. ``report``, ``equiv``
and ``sim --trace`` refuse before the run a program whose ops would need more than
``--max-memory`` (default 1 GiB of estimated per-op data, ``sim/lowering/op_estimate.py``); this section
runs each command in a fresh process on programs sized just under that limit and at twice it,
and reads the peak resident set size from ``/usr/bin/time -v``. The bar: under 1.5 GB at the
limit, and a refusal over it that takes seconds and little memory.

Programs (ascend-a2, one issuer group): ``copy``, a loop of a 16x16 load and store (2 ops per
trip), and ``gemm``, the demo GEMM after insert-sync with its K loop bound ``%n`` (about 15 ops
per trip, matmuls and flags: more per-op data). Their op counts are computed exactly by the same
estimate the commands use.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import figures
from bench_report import kernel_text as gemm_text

from tilesched.ir import parse_text
from tilesched.sim.lowering.lower import Lowering, find_function
from tilesched.sim.lowering.op_estimate import DEFAULT_MAX_MEMORY, least_ops, ops_within
from tilesched.target import load_target

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIMIT_MB = 1500
COPY = """func.func @copy(%n: index, %a: memref<1024x16xf32, "GM">, %u: memref<16x16xf32, "UB">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = arith.remui %i, %c16 : index
    %r = arith.muli %m, %c16 : index
    %v = tile.view %a[%r, %c0] {sizes = array<i64: 16, 16>} : memref<1024x16xf32, "GM"> -> memref<16x16xf32, "GM">
    tile.load %v, %u : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.store %u, %v : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  }
  func.return
}
"""
# command -> (per-op key of op_estimate.BYTES_PER_OP, programs kept: equiv keeps A and B)
COMMANDS = {"report": ("report", 1), "equiv": ("equiv", 2), "sim --trace": ("sim --trace", 1)}


def ops_of(text: str, n: int) -> int:
    """The ops one run of ``text`` with ``--arg n=N`` simulates (exact: every bound is known)."""
    target = load_target("ascend-a2")
    module = parse_text(text, "bench.mlir")
    lowering = Lowering(target, {"n": n})
    function = find_function(module, None)
    lowering.function(function)
    return least_ops(lowering, function, 1 << 62, steady=False).ops


def trips_for(text: str, ops: int) -> int:
    """The largest ``n`` whose run simulates at most ``ops`` ops (ops grow linearly in n)."""
    base, per = ops_of(text, 0), ops_of(text, 1) - ops_of(text, 0)
    return (ops - base) // per


def argv(command: str, path: pathlib.Path, n: int, out: pathlib.Path) -> list[str]:
    tool = [sys.executable, "-m", "tilesched.cli"]
    arg = ["--arg", f"n={n}"]
    if command == "report":
        return [*tool, "report", str(path), "-o", str(out / "r.html"), "--force", *arg]
    if command == "equiv":
        return [*tool, "equiv", str(path), str(path), *arg]
    return [*tool, "sim", str(path), "--trace", str(out / "t.json"), "--max-ops", "1e9", *arg]


def measure(cmd: list[str]) -> dict:
    """Exit status, wall seconds and peak RSS (MB) of one run under /usr/bin/time -v."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    last = [line for line in done.stderr.splitlines() if line.strip()
            and not line.startswith(("\t", "Command exited"))]
    return {"exit": done.returncode, "seconds": round(seconds, 1),
            "peak_mb": round(int(peak.group(1)) / 1024) if peak else None,
            "message": last[0][:140] if last and done.returncode else ""}


def run() -> str:
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for name, text in (("copy", COPY), ("gemm", gemm_text())):
            path = folder / f"{name}.mlir"
            path.write_text(text)
            for command, (key, programs) in COMMANDS.items():
                limit_ops = ops_within(key, 1, DEFAULT_MAX_MEMORY) // programs
                for label, wanted in (("at the limit", limit_ops), ("2x the limit", 2 * limit_ops)):
                    n = trips_for(text, wanted)
                    ops = ops_of(text, n)
                    row = {"program": name, "command": command, "size": label, "n": n,
                           "ops": ops * programs, **measure(argv(command, path, n, folder))}
                    print(f"  {row}", file=sys.stderr, flush=True)
                    figures.add_row("limits", "peak", **row)
                    rows.append(row)
    lines = ["## Memory limits of report, equiv and sim --trace",
             "",
             f"Peak RSS (`/usr/bin/time -v`) of each command in a fresh process on ascend-a2, on "
             f"programs sized just under the default `--max-memory` "
             f"({DEFAULT_MAX_MEMORY >> 30} GiB of estimated per-op data) and at twice it (refused "
             f"before the run, exit 2). Bar: under {LIMIT_MB} MB. `copy`: a loop of a 16x16 load "
             "and store; `gemm`: the demo GEMM after insert-sync, K loop of `n` trips. Ops: "
             "simulated ops kept (equiv: A and B together). Load average at the start: "
             f"{load:.1f} (2 cores, shared; seconds vary with the load, peak memory does not).",
             "",
             "| program | command | size | n | ops | exit | seconds | peak RSS MB | under bar |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = "yes" if r["peak_mb"] is not None and r["peak_mb"] < LIMIT_MB else "NO"
        lines.append(f"| {r['program']} | `{r['command']}` | {r['size']} | {r['n']:,} | "
                     f"{r['ops']:,} | {r['exit']} | {r['seconds']} | {r['peak_mb']} | {ok} |")
    return "\n".join(lines) + "\n"
