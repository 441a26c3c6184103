"""What the simulator's instruction producers cost, per 100k ops (issue 14: full-unroll speed).

Section `producers` of BENCHMARKS.md: `python benchmarks/run_all.py producers`.

1. `compile_trace` (`sim/code/program.py`) on the synthetic traces of the three sync families, the
   input of the engine benchmark in section `sim` (target: <= 0.10 s per 100k ops).
2. The streamed lowering as `tilesched sim --full` runs it (`sim/code/stream.py`, `sim/lowering/replay.py`,
   `sim/lowering/lower.py`, `sim/code/chunk_compiler.py`) on the `--full` kernels of section `sim`: every issuer
   group's chunks drained round robin with periodic iterations replayed (whole periods at a
   time with the compiled loops, ``replay.Repeat``), no engine (target: <= 0.05 s per 100k ops,
   0.5 us per op).

Each input is measured with the compiled per-op loops (`native/producers.pyx`, when built) and
with the pure-Python ones (`TILESCHED_PURE_PYTHON=1`), side by side. The cyclic garbage collector
is paused around each measurement, as `sim` runs the producers. CPU seconds (the least of a few
runs) are printed beside the load average: the machines are shared, and wall-clock time
stretches with the load.
"""

from __future__ import annotations

import gc
import os
import time

import sim_kernels

from tilesched.ir import parse_text
from tilesched.sim import native
from tilesched.sim.code.program import compile_trace
from tilesched.sim.code.stream import stream_module
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, cuda_pipeline
from tilesched.target import load_target

RUNS = 3


def _cpu(fn, pure: bool = False) -> float:
    """The least CPU seconds of ``RUNS`` calls, the cyclic collector paused (``pure``: with the
    pure-Python loops)."""
    best = float("inf")
    for _ in range(RUNS):
        gc.collect()
        gc.disable()
        if pure:
            os.environ["TILESCHED_PURE_PYTHON"] = "1"
        try:
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
            os.environ.pop("TILESCHED_PURE_PYTHON", None)
    return best


def drain(module, target) -> int:
    """Produce every instruction of a streamed program as ``sim --full`` does (periodic
    iterations replayed), fetching the groups' chunks round robin; returns the ops."""
    program = stream_module(module, target, {}, max_ops=None)
    program.lowering.replay = True
    program.batch_replayed_iterations()  # as run.FullRun (with the compiled loops only)
    sources = [program.chunks(i) for i in range(program.issuer_count)]
    live = list(range(len(sources)))
    while live:
        for i in list(live):
            if next(sources[i], None) is None:
                live.remove(i)
    return program.simulated * program.issuer_count


def _row(family: str, label: str, ops: int, fn, target: float) -> str:
    """One table row: ``fn`` timed with the compiled loops and with the Python ones."""
    native_s = _cpu(fn) if native.producers is not None else None
    pure = _cpu(fn, pure=True)
    best = native_s if native_s is not None else pure
    met = "met" if best * 100_000 / ops <= target else "NOT met"
    shown = f"{native_s:.3f}" if native_s is not None else "(not built)"
    return (f"| {family} | {label} | {ops:,} | {shown} | {pure:.3f} | "
            f"{best * 100_000 / ops:.3f} | {best * 1e6 / ops:.2f} | {os.getloadavg()[0]:.1f} | "
            f"{met} |")


def run() -> str:
    rows = ["| family | input | ops | CPU s (compiled loops) | CPU s (pure Python) | "
            "s per 100k ops | us per op | load | target |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for family, label, trace in (
            ("Ascend flags", "compile_trace, synthetic GEMM", ascend_gemm(100_000 // 13)),
            ("CUDA groups", "compile_trace, synthetic cp.async", cuda_pipeline(100_000 // 4)),
            ("AMD barriers", "compile_trace, synthetic LDS (2 groups)",
             amd_lds_gemm(100_000 // 16))):
        rows.append(_row(family, label, trace.op_count(),
                         lambda t=trace: compile_trace(t, with_accesses=True), 0.10))
    for family, label, text, name in (
            ("Ascend flags", "streamed, pipelined GEMM", sim_kernels.gemm(5_000), "ascend-a2"),
            ("CUDA groups", "streamed, cuda_gemm", sim_kernels.cuda_gemm(20_000), "cuda-sm80"),
            ("AMD barriers", "streamed, LDS loop", sim_kernels.amd_loop(10_000), "amd-gfx950")):
        target = load_target(name)
        module = parse_text(text, f"{name}.mlir")
        rows.append(_row(family, label, drain(module, target),
                         lambda m=module, t=target: drain(m, t), 0.05))
    return ("## Instruction producers\n\nTargets: `compile_trace` <= 0.10 s per 100k ops, the "
            "streamed lowering <= 0.05 s per 100k ops.\n\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    print(run())
