"""The simulator's lower bound per tile op: the Python tracker against the compiled one.

Section `bound` of BENCHMARKS.md: `python benchmarks/run_all.py bound` (or run this file).

The bound (`tilesched.sim.engine.critical_path`: busiest unit + read-after-write critical path) is fed
every instruction of a run, so its cost per tile op is part of every full-unroll simulation
(issue 14's 500k ops/s leaves ~2 us per op for everything). Two figures per trace, CPU time
per tile op of `feed` only (compiling the trace is not timed):

- *cold*: the compiled program fed in one chunk per issuer, as `simulate(trace)` does: the
  instruction tuples come from memory, and reading them is most of the cost (a loop that only
  reads the fields the bound needs costs 0.35-0.55 us per tile op on these traces);
- *hot*: chunks of 512 instructions that another tracker of the same kind has just read: the
  tracker's own work when the engine feeds it the chunk it is working on.

Python and compiled trackers are measured interleaved, best of three (CPU noise on the shared
machine is +-20%); the load average is printed. Both must give the same bound and busiest unit.
"""

from __future__ import annotations

import gc
import math
import os
import sys
import time

from tilesched.sim.code.program import compile_trace
from tilesched.sim.engine.critical_path import BoundTracker
from tilesched.sim.isa import ENQ, INLINE, TILE
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, cuda_pipeline

try:
    from tilesched.sim.native.bound import BoundTracker as NativeBoundTracker
except ImportError:  # the extension is not built
    NativeBoundTracker = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sim import distinct_tiles_trace  # noqa: E402

CHUNK = 512
REPEATS = 3
TARGET_US = 0.2


def tile_ops(p) -> int:
    return sum(1 for code in p.code for ins in code
               if (ins[0] == ENQ or ins[0] == INLINE) and ins[2][0] == TILE)


def cold(make, p) -> tuple[float, tuple]:
    """CPU seconds to feed the whole program, and ``(bound, busiest)``."""
    gc.collect()
    tracker = make(p)
    start = time.process_time()
    for issuer, code in enumerate(p.code):
        tracker.feed(issuer, code)
    return time.process_time() - start, (tracker.bound(), tracker.busiest())


def hot(make, p) -> tuple[float, tuple]:
    """CPU seconds to feed chunks another tracker has just read, and ``(bound, busiest)``."""
    gc.collect()
    warm, tracker = make(p), make(p)
    spent = 0.0
    for issuer, code in enumerate(p.code):
        for at in range(0, len(code), CHUNK):
            chunk = code[at:at + CHUNK]
            warm.feed(issuer, chunk)
            start = time.process_time()
            tracker.feed(issuer, chunk)
            spent += time.process_time() - start
    return spent, (tracker.bound(), tracker.busiest())


def measure(p) -> dict[str, float]:
    """Best-of-``REPEATS`` CPU seconds per (tracker, mode), interleaved."""
    best: dict[str, float] = {}
    answers = set()
    for _ in range(REPEATS):
        for name, make in (("python", BoundTracker), ("native", NativeBoundTracker)):
            for mode, run in (("cold", cold), ("hot", hot)):
                seconds, answer = run(make, p)
                answers.add(repr(answer))
                key = f"{name} {mode}"
                best[key] = min(best.get(key, math.inf), seconds)
    assert len(answers) == 1, f"the trackers disagree: {answers}"
    return best


def _us(seconds: float, ops: int) -> str:
    return f"{seconds / ops * 1e6:.3f}"


def rows() -> list[str]:
    out = ["| trace | tile ops | Python cold us/op | compiled cold us/op | ratio | "
           "Python hot us/op | compiled hot us/op | ratio | compiled hot <= 0.2 us |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    traces = (("Ascend GEMM (ascend_gemm(7692))", lambda: ascend_gemm(100_000 // 13)),
              ("CUDA cp.async (cuda_pipeline(25000, stages=3))",
               lambda: cuda_pipeline(25_000, stages=3)),
              ("AMD LDS (amd_lds_gemm(6250))", lambda: amd_lds_gemm(6_250)),
              ("distinct tiles, 10k statements", lambda: distinct_tiles_trace(10_000)),
              ("distinct tiles, 50k statements", lambda: distinct_tiles_trace(50_000)))
    distinct = []
    for label, build in traces:
        p = compile_trace(build())
        ops = tile_ops(p)
        t = measure(p)
        if label.startswith("distinct"):
            distinct.append((ops, t))
        met = "met" if t["native hot"] / ops * 1e6 <= TARGET_US else "NOT met"
        out.append(f"| {label} | {ops:,} | {_us(t['python cold'], ops)} | "
                   f"{_us(t['native cold'], ops)} | {t['python cold'] / t['native cold']:.1f} | "
                   f"{_us(t['python hot'], ops)} | {_us(t['native hot'], ops)} | "
                   f"{t['python hot'] / t['native hot']:.1f} | {met} |")
        del p
    (small, a), (large, b) = distinct
    out.append("")
    out.append("Growth 10k -> 50k statements (exponent of CPU time against tile ops; 1 is "
               "linear): " + ", ".join(
                   f"{key} {math.log(b[key] / a[key]) / math.log(large / small):.2f}"
                   for key in ("python cold", "native cold", "python hot", "native hot")) + ".")
    return out


def run() -> str:
    if NativeBoundTracker is None:
        return ("## Lower bound: Python and compiled trackers\n\nThe compiled tracker "
                "(`tilesched.sim.native.bound`) is not built here: nothing to compare.\n")
    load = os.getloadavg()[0]
    body = "\n".join(rows())
    return (f"## Lower bound: Python and compiled trackers\n\n`benchmarks/bench_bound.py`, "
            f"CPU time of `feed` per tile op, best of {REPEATS}, 1-minute load {load:.2f} at "
            f"the start, {os.getloadavg()[0]:.2f} at the end.\n\n{body}\n")


if __name__ == "__main__":
    print(run())
