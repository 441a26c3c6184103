"""Software pipelining: GEMM cycles with and without ``software-pipeline``, against the bound.

Each GEMM is the examples' kernel (``tilesched.examples``: Ascend GM->L1->L0->cube, CUDA
cp.async->registers->mma) with K blocks scaled, annotated with a hand-written schedule:

- ascend-a2: loads stage 0, L1->L0 copies stage 1, matmul stage 2 (2 slots per buffer,
  kernel unrolled twice so insert-sync can give each slot its own event ids);
- cuda-sm80: cp.async loads stage 0 (async), copies + mma stage 1 (2 slots, wait 1).

Both versions then get ``insert-sync`` on Ascend (the pipelined CUDA loop already carries
its exact commit/wait groups). The simulator gives cycles and the lower bound (busiest unit /
longest dependence chain); *efficiency* = bound / cycles (goal: >= 90% for the pipelined loop).
A short loop cannot reach it: after the last load the final copy, matmul and drain cannot
overlap anything, and that tail is a fixed cost the K blocks amortize.
"""

from __future__ import annotations

import time

import figures
from xdsl.dialects.builtin import ModuleOp

from tilesched.ir import parse_text, print_module
from tilesched.ir.dsl import Kernel
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

M = N = 128


def ascend_gemm(blocks: int, staged: bool) -> ModuleOp:
    """C = A @ B on ascend-a2 with ``blocks`` K blocks of 64 (stages 0 / 1 / 2 when staged)."""
    kb_size = 64
    k = Kernel("ascend_gemm", target="ascend-a2")
    a = k.arg("a", (M, blocks * kb_size), "f16", "GM")
    b = k.arg("b", (blocks * kb_size, N), "f16", "GM")
    c = k.arg("c", (M, N), "f32", "GM")
    a_l1 = k.alloc((M, kb_size), "f16", "L1", name="a_l1")
    b_l1 = k.alloc((kb_size, N), "f16", "L1", name="b_l1")
    a_l0 = k.alloc((M, kb_size), "f16", "L0A", name="a_l0")
    b_l0 = k.alloc((kb_size, N), "f16", "L0B", name="b_l0")
    acc = k.alloc((M, N), "f32", "L0C", name="acc")

    def at(stage, order):
        return {"stage": stage, "order": order} if staged else {}
    for kb in k.range(blocks, name="kb"):
        koff = (kb * kb_size).named("koff")
        k.load(a.view((0, koff), (M, kb_size), name="a_blk"), a_l1, **at(0, 0))
        k.load(b.view((koff, 0), (kb_size, N), name="b_blk"), b_l1, **at(0, 1))
        k.copy(a_l1, a_l0, **at(1, 2))
        k.copy(b_l1, b_l0, **at(1, 3))
        with k.if_((kb == 0).named("first"), **at(2, 4)):
            k.matmul(a_l0, b_l0, acc)
        with k.else_():
            k.matmul(a_l0, b_l0, acc, accumulate=True)
    k.store(acc, c)
    return k.module()


def cuda_gemm(blocks: int, staged: bool) -> ModuleOp:
    """C = A @ B on cuda-sm80 with ``blocks`` K blocks of 32 (loads stage 0, async)."""
    kb_size = 32
    k = Kernel("cuda_gemm", target="cuda-sm80")
    a = k.arg("a", (M, blocks * kb_size), "f16", "global")
    b = k.arg("b", (blocks * kb_size, N), "f16", "global")
    c = k.arg("c", (M, N), "f32", "global")
    a_s = k.alloc((M, kb_size), "f16", "shared", name="a_s")
    b_s = k.alloc((kb_size, N), "f16", "shared", name="b_s")
    a_r = k.alloc((M, kb_size), "f16", "local", name="a_r")
    b_r = k.alloc((kb_size, N), "f16", "local", name="b_r")
    acc = k.alloc((M, N), "f32", "local", name="acc")
    k.fill(acc, 0.0)

    def at(stage, order):
        return {"stage": stage, "order": order} if staged else {}
    for kb in k.range(blocks, name="kb", async_stages=[0] if staged else None):
        koff = (kb * kb_size).named("koff")
        k.load(a.view((0, koff), (M, kb_size), name="a_blk"), a_s, **at(0, 0))
        k.load(b.view((koff, 0), (kb_size, N), name="b_blk"), b_s, **at(0, 1))
        k.copy(a_s, a_r, **at(1, 2))
        k.copy(b_s, b_r, **at(1, 3))
        k.matmul(a_r, b_r, acc, accumulate=True, **at(1, 4))
    k.store(acc, c)
    return k.module()


def compile_and_simulate(module: ModuleOp, target: str, passes: str):
    """Run ``passes`` (text round trip, as the CLI would), then simulate; also the trace."""
    tgt = load_target(target)
    module = parse_text(print_module(module), "bench.mlir")
    run_pipeline(module, parse_pass_pipeline(passes), TileContext(target=tgt))
    trace = lower_module(module, tgt)
    return simulate(trace), trace


def measure(target: str, builder, blocks: int) -> dict:
    """Unpipelined vs pipelined cycles for one GEMM size; checks race freedom and equivalence."""
    tgt = load_target(target)
    plain_passes = "insert-sync"
    piped_passes = ("software-pipeline,insert-sync" if tgt.sync == "flags"
                    else "software-pipeline")
    start = time.perf_counter()
    plain, plain_trace = compile_and_simulate(builder(blocks, False), target, plain_passes)
    piped, piped_trace = compile_and_simulate(builder(blocks, True), target, piped_passes)
    seconds = time.perf_counter() - start
    same = equivalent(plain_trace, piped_trace).equivalent
    return {"target": target, "blocks": blocks, "plain": plain.cycles, "piped": piped.cycles,
            "bound": piped.bound, "ok": plain.ok and piped.ok, "same": same,
            "seconds": seconds}


def run() -> str:
    """The Markdown section for BENCHMARKS.md."""
    rows = [measure(t, b, n) for t, b in (("ascend-a2", ascend_gemm), ("cuda-sm80", cuda_gemm))
            for n in (8, 32, 64)]
    figures.add_rows("pipeline", "gemm", rows)  # the data of BENCHMARKS.md's figures
    lines = [
        "## Software pipelining (GEMM)",
        "",
        "`benchmarks/bench_pipeline.py`: the examples' GEMM with K scaled to *blocks* K blocks;",
        "*unpipelined* = `insert-sync` only, *pipelined* = `software-pipeline` (then `insert-sync`",
        "on Ascend). Efficiency = bound / cycles (bound: busiest unit or longest dependence",
        "chain, `tilesched sim`); goal >= 90% pipelined. *race-free* and *equiv* (the",
        "pipelined program computes what the unpipelined one does, `tilesched equiv`) are",
        "checked in the same run.",
        "",
        "| target | blocks | unpipelined cycles | pipelined cycles | bound | efficiency "
        "(unpipelined / pipelined) | speedup | race-free | equiv |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        eff_plain = r["bound"] / r["plain"]
        eff_piped = r["bound"] / r["piped"]
        same = "-" if r["same"] is None else ("yes" if r["same"] else "NO")
        lines.append(f"| {r['target']} | {r['blocks']} | {r['plain']:,} | {r['piped']:,} | "
                     f"{r['bound']:,} | {eff_plain:.1%} / **{eff_piped:.1%}** | "
                     f"{r['plain'] / r['piped']:.2f}x | {'yes' if r['ok'] else 'NO'} | {same} |")
    lines += ["", "With 8 blocks (the shipped examples' size) the fixed tail after the last load",
              "(final copies, matmul, accumulator drain: ~1.4k cycles on Ascend, ~2.8k on CUDA)",
              "keeps the pipelined loop below 90% of the bound; from 32 blocks on it is above."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
