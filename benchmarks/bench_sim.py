"""The simulator at scale: steady-state loops, full-unroll throughput, verification cost.

Section `sim` of BENCHMARKS.md: `python benchmarks/run_all.py sim`.

1. *Steady state*: a pipelined GEMM with 10^6 K blocks and attention with 10^5 sequence blocks
   (`sim_kernels.py`), each simulated in a fresh process (`sim_probe.py`) as `tilesched sim` does:
   seconds for lowering + simulation (parsing and imports reported apart) and peak resident
   memory of that process.
2. *Time against trip count*: the same GEMM at 10^2 .. 10^6 K blocks, steady state and (up to
   10^4) every iteration.
3. *Late faults*: a deadlock, a leaked flag and a race at iteration 1000 of 10^3 .. 10^9
   iterations (`sim_kernels.late_fault`), and a leak every iteration that must be refused.
4. *Full-unroll throughput with race checking*, per sync family: the hand-written traces of
   `tilesched.sim.synthetic` (engine only, as before) and MLIR loops simulated with `--full` as
   `tilesched sim` runs them (lowering included).
5. *Verification cost against size*: straight-line code over 1,000 distinct UB tiles, 1k to 50k
   statements (traces; race check, violations and the lower bound); growth exponent.

One run per cell, on a shared 2-core machine: the load average is printed; wall-clock figures
stretch with it, so CPU seconds of the measured process are printed beside them, and rates and
the growth exponent are computed from CPU time.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import figures
import sim_kernels

from tilesched.sim.functional import run_concurrent
from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, ascend_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder

HERE = pathlib.Path(__file__).resolve().parent
PROBE = HERE / "sim_probe.py"


def _probe(text: str, target: str, full: bool = False, pure: bool = False,
           max_ops: int | None = None) -> dict:
    """Simulate MLIR text in a fresh process (sim_probe.py) and return its measurements
    (``pure``: with the pure-Python engine, ``TILESCHED_PURE_PYTHON=1``; ``max_ops``: refuse
    as ``tilesched sim --max-ops`` does)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as out:
        out.write(text)
    env = dict(os.environ)
    env.pop("TILESCHED_PURE_PYTHON", None)
    if pure:
        env["TILESCHED_PURE_PYTHON"] = "1"
    try:
        args = [sys.executable, str(PROBE), out.name, target] + (["--full"] if full else [])
        args += [f"--max-ops={max_ops}"] if max_ops is not None else []
        done = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
        return json.loads(done.stdout)
    finally:
        os.unlink(out.name)


def _timed(fn) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of one call."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def _rate(ops: int, seconds: float) -> str:
    return f"{ops / seconds / 1000:,.0f}k"


def steady_rows() -> list[str]:
    rows = ["| kernel | blocks | cycles | simulate s (wall) | CPU s | peak MB (process) | "
            "after imports MB | ops simulated / represented | period | transient | targets |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label, build, blocks in (("pipelined GEMM (ascend-a2)", sim_kernels.gemm, 10 ** 6),
                                 ("attention (ascend-a2)", sim_kernels.attention, 10 ** 5)):
        got = _probe(build(blocks), "ascend-a2")
        (loop,) = got["steady_state"] or [{"period": "-", "transient_iterations": "-"}]
        figures.add_row("sim", "steady", kernel=label, blocks=blocks, seconds=got["simulate_s"],
                        peak_mb=got["peak_mb"])
        met = got["simulate_s"] < 1 and got["peak_mb"] < 200
        rows.append(f"| {label} | {blocks:,} | {got['cycles']:,} | {got['simulate_s']:.2f} | "
                    f"{got['cpu_s']:.2f} | {got['peak_mb']:.0f} | {got['import_mb']:.0f} | "
                    f"{got['ops_simulated']:,} / {got['ops_represented']:,} | {loop['period']} | "
                    f"{loop['transient_iterations']} | {'met' if met else 'NOT met'} |")
    return rows


def trip_rows() -> list[str]:
    rows = ["| K blocks | cycles | steady s (wall) | steady CPU s | full s (wall) | full CPU s | "
            "ops simulated (steady) |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for blocks in (10 ** 2, 10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6):
        text = sim_kernels.gemm(blocks)
        steady = _probe(text, "ascend-a2")
        full = _probe(text, "ascend-a2", full=True) if blocks <= 10 ** 5 else None
        assert full is None or full["cycles"] == steady["cycles"]
        figures.add_row("sim", "trips", blocks=blocks, steady_s=steady["simulate_s"],
                        full_s=full["simulate_s"] if full else None)
        full_cells = f"{full['simulate_s']:.2f} | {full['cpu_s']:.2f}" if full else "- | -"
        rows.append(f"| {blocks:,} | {steady['cycles']:,} | {steady['simulate_s']:.2f} | "
                    f"{steady['cpu_s']:.2f} | {full_cells} | {steady['ops_simulated']:,} |")
    return rows


def late_rows() -> list[str]:
    """Faults at iteration 1000 of 10^3 .. 10^9 iterations (``sim_kernels.late_fault``), as
    ``tilesched sim`` runs them (default ``--max-ops``), and a leak every iteration, which the
    simulator must refuse (the state grows): how long it takes to say so."""
    rows = ["| program | iterations | fault at | verdict | ops simulated | simulate s (wall) | "
            "CPU s | peak MB (process) | target < 2 s, < 300 MB |",
            "|---|---:|---:|---|---:|---:|---:|---:|---|"]
    cases = [(fault, trips, min(1000, trips // 2)) for fault in ("deadlock", "leak", "race")
             for trips in (10 ** 3, 10 ** 6, 10 ** 9)]
    cases = [(label, trips, at, sim_kernels.late_fault(trips, label, at))
             for label, trips, at in cases]
    cases.append(("leak every iteration (refused)", 10 ** 6, 0, sim_kernels.leak_every(10 ** 6)))
    for label, trips, at, text in cases:
        got = _probe(text, "ascend-a2", max_ops=2_000_000)
        if "error" in got:
            verdict, simulated = "refused (--max-ops)", "-"
        else:
            found = (["deadlock"] if got["deadlock"] else []) + \
                (["race"] if got["races"] else []) + got["violations"]
            verdict, simulated = ", ".join(found) or "ok", f"{got['ops_simulated']:,}"
        met = got["cpu_s"] < 2 and got["peak_mb"] < 300
        figures.add_row("sim", "late", program=label, iterations=trips, at=at, verdict=verdict,
                        cpu_s=got["cpu_s"], peak_mb=got["peak_mb"])
        rows.append(f"| {label} | {trips:,} | {at:,} | {verdict} | {simulated} | "
                    f"{got['simulate_s']:.2f} | "
                    f"{got['cpu_s']:.2f} | {got['peak_mb']:.0f} | {'met' if met else 'NOT met'} |")
    return rows


def family_rows() -> list[str]:
    """Each input run by the compiled core (as installed) and by the pure-Python engine, side by
    side in this one run; the rate that counts is the default one (the compiled core)."""
    rows = ["| family | input | ops | ops/s (CPU) | ops/s (wall) | CPU s | wall s | "
            "pure Python ops/s (CPU) | speedup | target 500k ops/s |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    traces = (("Ascend flags", "synthetic GEMM trace", ascend_gemm(100_000 // 13)),
              ("CUDA groups", "synthetic cp.async trace", cuda_pipeline(100_000 // 4, stages=3)),
              ("AMD barriers", "synthetic LDS trace (2 groups)", amd_lds_gemm(100_000 // 16)))
    for family, label, trace in traces:
        ops = trace.op_count()
        seconds, cpu = _best(lambda t=trace: _timed(lambda: simulate(t)))
        with _pure_python():
            _, pure_cpu = _best(lambda t=trace: _timed(lambda: simulate(t)))
        figures.add_row("sim", "families", family=family, input=label, ops_per_s=ops / cpu)
        rows.append(_family_row(family, label, ops, seconds, cpu, pure_cpu))
    for family, label, text, target in (
            ("Ascend flags", "pipelined GEMM, `sim --full`", sim_kernels.gemm(20_000),
             "ascend-a2"),
            ("CUDA groups", "cuda_gemm + insert-sync, `sim --full`",
             sim_kernels.cuda_gemm(50_000), "cuda-sm80"),
            ("AMD barriers", "LDS loop (2 groups), `sim --full`", sim_kernels.amd_loop(30_000),
             "amd-gfx950")):
        got = min((_probe(text, target, full=True) for _ in range(RUNS)), key=_cpu)
        pure = min((_probe(text, target, full=True, pure=True) for _ in range(RUNS)), key=_cpu)
        assert pure["cycles"] == got["cycles"]
        ops = got["ops_represented"]
        figures.add_row("sim", "families", family=family, input=label,
                        ops_per_s=ops / got["cpu_s"])
        rows.append(_family_row(family, label, ops, got["simulate_s"], got["cpu_s"],
                                pure["cpu_s"]))
    return rows


RUNS = 3  # throughput rows: the fastest of this many runs (CPU time; the host is noisy)


def _best(measure) -> tuple[float, float]:
    """The ``(wall, CPU)`` seconds of the run with the least CPU time of ``RUNS``."""
    return min((measure() for _ in range(RUNS)), key=lambda timing: timing[1])


def _cpu(probe: dict) -> float:
    return probe["cpu_s"]


@contextlib.contextmanager
def _pure_python():
    """Run the enclosed simulations on the pure-Python engine."""
    os.environ["TILESCHED_PURE_PYTHON"] = "1"
    try:
        yield
    finally:
        del os.environ["TILESCHED_PURE_PYTHON"]


def _family_row(family: str, label: str, ops: int, seconds: float, cpu: float,
                pure_cpu: float) -> str:
    met = "met" if ops / cpu >= 500_000 else "NOT met"
    return (f"| {family} | {label} | {ops:,} | {_rate(ops, cpu)} | {_rate(ops, seconds)} | "
            f"{cpu:.2f} | {seconds:.2f} | {_rate(ops, pure_cpu)} | {pure_cpu / cpu:.1f}x | "
            f"{met} |")


def distinct_tiles_trace(statements: int, tiles: int = 1000):
    """The trace of sim_kernels.distinct_tiles, built directly (no parsing)."""
    b = TraceBuilder(ascend_machine())
    gm = b.buffer("gm", (4 * tiles, 16), "float16", "GM", True)
    out = b.buffer("out", (4 * tiles, 16), "float16", "GM", True)
    ub = b.buffer("ub", (4 * tiles, 16), "float16", "UB")
    for s in range(statements):
        row = 4 * (s % tiles)
        tile = b.tile(ub, (row, 0), (4, 16))
        b.op("tile.load", "MTE2", 41, [b.tile(gm, (row, 0), (4, 16)), tile])
        b.op("sync.set_flag", props={"src": "MTE2", "dst": "V", "event": s % 8})
        b.op("sync.wait_flag", props={"src": "MTE2", "dst": "V", "event": s % 8})
        b.op("tile.exp", "V", 20, [tile, tile])
        b.op("sync.set_flag", props={"src": "V", "dst": "MTE3", "event": s % 8})
        b.op("sync.wait_flag", props={"src": "V", "dst": "MTE3", "event": s % 8})
        b.op("tile.store", "MTE3", 41, [tile, b.tile(out, (row, 0), (4, 16))])
        if s % 8 == 7:
            b.op("sync.barrier_all")
    return b.build()


def verify_rows() -> list[str]:
    rows = ["| statements | ops | verify s (wall) | CPU s | ops/s (CPU) | exponent vs previous "
            "(CPU) |", "|---:|---:|---:|---:|---:|---:|"]
    previous = None
    for statements in (1_000, 10_000, 50_000):
        trace = distinct_tiles_trace(statements)
        ops = trace.op_count()
        holder: dict = {}
        seconds, cpu = _best(lambda t=trace, h=holder: _timed(lambda: h.update(r=simulate(t))))
        assert holder["r"].ok
        exponent = "" if previous is None else \
            f"{math.log(cpu / previous[1]) / math.log(ops / previous[0]):.2f}"
        figures.add_row("sim", "verify", statements=statements, ops=ops, seconds=seconds)
        rows.append(f"| {statements:,} | {ops:,} | {seconds:.2f} | {cpu:.2f} | {_rate(ops, cpu)} | "
                    f"{exponent} |")
        previous = (ops, cpu)
        del trace
    return rows


def functional_rows() -> list[str]:
    rows = ["| Ascend GEMM ops | ops/s (CPU) | CPU s | wall s |", "|---:|---:|---:|---:|"]
    for size in (10_000, 100_000):
        trace = ascend_gemm(size // 13, tile=16)
        ops = trace.op_count()
        seconds, cpu = _timed(lambda t=trace: run_concurrent(t, seed=0))
        rows.append(f"| {ops:,} | {_rate(ops, cpu)} | {cpu:.2f} | {seconds:.2f} |")
    return rows


def run() -> str:
    """The Markdown section for BENCHMARKS.md."""
    load = os.getloadavg()[0]
    lines = [
        "## Simulator at scale",
        "",
        f"1-minute load average when the run started: {load:.1f} on {os.cpu_count()} cores "
        "(shared machine: wall-clock figures stretch with the load; CPU seconds of the measured "
        "process are shown beside them, and rates and exponents use CPU time).",
        "",
        "**Steady state** (`benchmarks/sim_kernels.py`; each row a fresh process running "
        "`benchmarks/sim_probe.py`, the same lowering and engine as `tilesched sim`). *simulate s*: "
        "lowering + simulation, parsing and imports excluded; *peak MB*: peak resident memory of "
        "that process (Python and the imports included: *after imports*). Targets: < 1 s and "
        "< 200 MB each.",
        "",
        *steady_rows(),
        "",
        "**Time against trip count** (the same GEMM; *full* is `sim --full`, same cycles):",
        "",
        *trip_rows(),
        "",
        "**Late faults** (`sim_kernels.late_fault`: a double-buffered stream synchronized by "
        "insert-sync whose iteration 1000 waits for an event id nothing sets, sets a flag nothing "
        "waits for, or writes a tile without a flag; each row a fresh process as `tilesched sim` "
        "runs it, default `--max-ops` 2,000,000; the last row a flag set every iteration and "
        "never waited for, which must be refused):",
        "",
        *late_rows(),
        "",
        "**Full-unroll throughput with race checking**, simulated ops (tile + sync) per second: "
        "traces as `simulate(trace)` runs them (compiling the trace, timing, races, violations, "
        "bound), and MLIR loops as `tilesched sim --full` runs them (lowering included, parsing "
        "excluded; iterations of a proven-periodic loop replayed whole periods at a time, "
        "\"Batched replay\" in `docs/simulator.md`). Each figure is the fastest of 3 runs (CPU "
        "time: the host's speed varies from minute to minute). Both by the compiled core (`docs/simulator.md`, \"Native core\"), and, "
        "measured beside it in the same run, by the pure-Python engine (`TILESCHED_PURE_PYTHON=1`)."
        " Target: 500k ops/s on every family.",
        "",
        *family_rows(),
        "",
        "**Verification cost against size**: straight-line code over 1,000 distinct 4x16 UB "
        "tiles (load, flags, exp, flags, store per statement; traces; the fastest of 3 runs). The exponent is "
        "log(CPU time ratio) / log(ops ratio) against the previous row (1.00 = linear).",
        "",
        *verify_rows(),
        "",
        "Functional mode (timing with recording + numpy replay of every tile op, 16x16 tiles):",
        "",
        *functional_rows(),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
