"""Simulator throughput: simulated ops per second by mode and trace size.

Traces are the hand-written software pipelines of ``tilesched.sim.synthetic`` (Ascend flags GEMM,
CUDA cp.async groups, AMD LDS barriers), unrolled to about 10^4, 10^5 and 10^6 ops. Modes:

- *timing only*: compile the trace and run the timing engine (no race check, no bound);
- *verify*: what ``tilesched sim`` does: timing, happens-before race check, sync violations and
  the lower bound;
- *functional*: timing with recording, then the numpy replay of every tile op (16x16 tiles);
- *lowering*: MLIR -> trace (unrolling an ``scf.for`` with ``--arg n``), for scale.

Building the trace objects is not timed. One process, one run per cell, on a shared 2-core
machine: expect +-15 % noise.
"""

from __future__ import annotations

import gc
import os
import time

from tilesched.ir import parse_text
from tilesched.sim.engine import simulate
from tilesched.sim.functional import run_concurrent
from tilesched.sim.lower import lower_module
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, cuda_pipeline
from tilesched.target import load_target

ASCEND_OPS_PER_ITER = 13
SIZES = (10_000, 100_000, 1_000_000)

LOOP = """
builtin.module {
  func.func @k(%x: memref<16x16xf16, "GM">, %y: memref<16x16xf16, "GM">, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ub = memref.alloc() : memref<2x16x16xf16, "UB">
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      %slot = tile.slot %ub[%s] : memref<2x16x16xf16, "UB"> -> memref<16x16xf16, "UB">
      tile.load %x, %slot : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
      "sync.set_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
      "sync.wait_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
      tile.exp %slot, %slot : memref<16x16xf16, "UB">, memref<16x16xf16, "UB">
      "sync.barrier_all"() : () -> ()
    }
    func.return
  }
}
"""


def _timed(fn) -> float:
    """Wall-clock seconds of one call (after a full collection)."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _rate(ops: int, seconds: float) -> str:
    """Thousands of ops per second."""
    return f"{ops / seconds / 1000:,.0f}k"


def _ascend_rows() -> list[str]:
    """Timing and verify throughput on the Ascend GEMM at each size."""
    rows = []
    for size in SIZES:
        trace = ascend_gemm(size // ASCEND_OPS_PER_ITER)
        ops = trace.op_count()
        timing = _timed(lambda t=trace: simulate(t, check_races=False, bound=False))
        verify = _timed(lambda t=trace: simulate(t))
        rows.append(f"| Ascend flags GEMM | {ops:,} | {_rate(ops, timing)} | {_rate(ops, verify)} |"
                    f" {timing:.2f} / {verify:.2f} |")
        del trace
    return rows


def _family_rows() -> list[str]:
    """The same for the CUDA and AMD families at ~10^5 ops."""
    rows = []
    for label, trace in (("CUDA cp.async groups", cuda_pipeline(100_000 // 4, stages=3)),
                         ("AMD LDS barriers (2 groups)", amd_lds_gemm(100_000 // 16))):
        ops = trace.op_count()
        timing = _timed(lambda t=trace: simulate(t, check_races=False, bound=False))
        verify = _timed(lambda t=trace: simulate(t))
        rows.append(f"| {label} | {ops:,} | {_rate(ops, timing)} | {_rate(ops, verify)} |"
                    f" {timing:.2f} / {verify:.2f} |")
    return rows


def _functional_rows() -> list[str]:
    """Functional replay throughput on 16x16-tile GEMMs."""
    rows = []
    for size in SIZES:
        trace = ascend_gemm(size // ASCEND_OPS_PER_ITER, tile=16)
        ops = trace.op_count()
        seconds = _timed(lambda t=trace: run_concurrent(t, seed=0))
        rows.append(f"| {ops:,} | {_rate(ops, seconds)} | {seconds:.2f} |")
        del trace
    return rows


def _lowering_row() -> str:
    """Unrolling an MLIR loop into a trace."""
    target = load_target("ascend-a2")
    module = parse_text(LOOP, "bench.mlir")
    iterations = 20_000
    holder = {}
    seconds = _timed(lambda: holder.setdefault("t", lower_module(module, target, {"n": iterations})))
    ops = holder["t"].op_count()
    return f"| lowering (scf.for unrolled, Ascend) | {ops:,} | {_rate(ops, seconds)} | {seconds:.2f} |"


def run() -> str:
    """The Markdown section for BENCHMARKS.md."""
    load = os.getloadavg()[0]
    lines = [
        "## Simulator throughput",
        "",
        f"1-minute load average when the run started: {load:.1f} on {os.cpu_count()} cores "
        "(other jobs share the machine; higher load, lower figures).",
        "",
        "Simulated ops (tile + sync) per second. *timing*: trace compilation + timing engine;",
        "*verify*: what `tilesched sim` runs (timing, happens-before races, sync violations,",
        "lower bound). Traces: `tilesched.sim.synthetic` pipelines (building them is not timed).",
        "",
        "| trace | ops | timing ops/s | verify ops/s | seconds (timing / verify) |",
        "|---|---:|---:|---:|---:|",
        *_ascend_rows(),
        *_family_rows(),
        "",
        "Functional mode (timing with recording + numpy replay of every tile op, 16x16 tiles):",
        "",
        "| Ascend GEMM ops | ops/s | seconds |",
        "|---:|---:|---:|",
        *_functional_rows(),
        "",
        "| front end | ops | ops/s | seconds |",
        "|---|---:|---:|---:|",
        _lowering_row(),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
