"""emit-cpp on the real PTO-ISA library: every coverage kernel compiled and run, errors against numpy.

Section `emit` of BENCHMARKS.md: `python benchmarks/run_all.py emit`.

The kernels of run-cpp's coverage tests (tests/emit/cpp_cases.py): every bundled Ascend example
and the fusion tests' random vector kernels (plus the loop-carried UB sum), each after
`insert-sync`, `fuse-tiles,insert-sync` and `modulo-schedule,software-pipeline,insert-sync`
(examples with hand-written sync also as written; the double-buffered GEMMs at -O1, which
halves their run time on the CPU simulator), and the per-slot event-id kernel as written.
Each is emitted, compiled alone with clang++-19 -std=c++20 -D__CPU_SIM (-O0) against the pinned
PTO-ISA headers, run on seed-0 inputs, and every global buffer compared element by element with
tilesched's numpy semantics of the kernel as written: the largest absolute and relative error
per element type against run-cpp's tolerance (|cpp - ref| <= atol + rtol |ref|). Then the same
kernels compiled in groups, one program per group, as the tests do. Times are wall seconds with
the 1-minute load average (the machine is shared).
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import time

import figures

from tilesched.commands.run_cpp import TOLERANCE, run_cases
from tilesched.emit import harness
from tilesched.examples import EXAMPLES

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "emit"))
import cpp_cases  # noqa: E402  (the coverage tests' kernels: one list for tests and benchmark)


def run() -> str:
    headers = harness.find_headers()
    small = [e.name for e in EXAMPLES if e.target.startswith("ascend") and e.name not in cpp_cases.LARGE]
    large = [e.name for e in EXAMPLES if e.name in cpp_cases.LARGE]
    refused: list[tuple[str, str, str]] = []
    groups = {"examples": (cpp_cases.example_cases(small), "-O0"),
              "double-buffered GEMMs": (cpp_cases.example_cases(large, refused=refused), "-O1"),
              "fusion kernels": (cpp_cases.fusion_cases() + cpp_cases.extra_cases(), "-O0")}
    rows = []
    batch = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-emit-") as tmp:
        folder = pathlib.Path(tmp)
        for group, (prepared, optimize) in groups.items():
            for k, item in enumerate(prepared):
                compile_s, results = run_cases([item], folder / f"{group[:3]}{k}", headers,
                                               optimize)
                outputs, run_s = results[0]
                for dtype in sorted(set(item.dtypes)):
                    mine = [o for o, d in zip(outputs, item.dtypes, strict=True) if d == dtype]
                    row = {"kernel": item.case.label, "dtype": dtype, "optimize": optimize,
                           "tolerance": TOLERANCE.get(dtype, (0, 0)),
                           "max_abs": max(o.max_abs_error for o in mine),
                           "max_rel": max(o.max_rel_error for o in mine),
                           "equal": all(o.equal for o in mine),
                           "compile_s": compile_s, "run_s": run_s}
                    rows.append(row)
                    figures.add_row("emit", "kernels", **row)
            started = time.perf_counter()
            compile_s, results = run_cases(prepared, folder / f"batch-{group[:3]}", headers,
                                           optimize)
            batch.append((f"{group} ({optimize})", len(prepared), compile_s,
                          sum(s for _, s in results),
                          time.perf_counter() - started,
                          all(o.equal for outs, _ in results for o in outs)))
            figures.add_row("emit", "batches", group=group, kernels=len(prepared),
                            compile_s=compile_s, wall_s=batch[-1][4])
    load_after = os.getloadavg()[0]
    lines = ["## emit", "",
             "`emit-cpp` output compiled with clang++-19 -std=c++20 -D__CPU_SIM (-O0) against the "
             "pinned PTO-ISA headers and run on the library's CPU simulator (seed 0), every global "
             "buffer compared with tilesched's numpy semantics (`tilesched run-cpp`). Tolerance: "
             "|cpp - ref| <= atol + rtol |ref| per element type, "
             + ", ".join(f"{t} rtol {r:g} atol {a:g}" for t, (r, a) in TOLERANCE.items())
             + "; other types exact. Errors are the largest over the kernel's buffers of that type. "
             f"Load average {load_before:.1f} before, {load_after:.1f} after.", "",
             "| kernel [pipeline] | type | max abs error | max rel error | equal | -O | compile s | run s |",
             "|---|---|---:|---:|---|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['dtype']} | {r['max_abs']:.3g} | {r['max_rel']:.3g} | "
                     f"{'yes' if r['equal'] else 'NO'} | {r['optimize']} | {r['compile_s']:.1f} | "
                     f"{r['run_s']:.2f} |")
    alone = sum({r['kernel']: r['compile_s'] for r in rows}.values())
    kernels = len({r['kernel'] for r in rows})
    lines += ["", f"{kernels} kernels, {sum(r['equal'] for r in rows)} of {len(rows)} "
              f"(kernel, type) rows equal; compiled one by one: {alone:.0f} s in all.", "",
              "Refused by a pass of the pipeline (bad input for it; nothing to run): "
              + ("; ".join(f"{name} [{pipeline}]: {message.split('error: ', 1)[-1].splitlines()[0][:220]}"
                           for name, pipeline, message in refused) or "none") + ".", "",
              "Compiled in groups (one program per group, as tests/emit/test_run_cpp.py does: the "
              "headers are parsed once):", "",
              "| group | kernels | compile s | runs s | wall s | all equal |",
              "|---|---:|---:|---:|---:|---|"]
    for group, count, compile_s, runs_s, wall_s, equal in batch:
        lines.append(f"| {group} | {count} | {compile_s:.1f} | {runs_s:.2f} | {wall_s:.1f} | "
                     f"{'yes' if equal else 'NO'} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
