"""Parse + verify time of large programs: the front end every command runs first.

Section `frontend` of BENCHMARKS.md: `python benchmarks/run_all.py frontend`.

Issue 11 measured `tilesched opt -p verify` on a 5 MB file of ~50k ops in one block at 62 s
(line numbers were found by counting the newlines before every op: quadratic); the goal is
parse + verify of 50k ops in under 5 s. Issue 24: the same program in MLIR's generic form
(parse + verify < 4 s CPU, `opt -p insert-sync` < 15 s CPU). The programs here are what a synchronized, unrolled
kernel looks like: slots, loads, vector ops, stores and set/wait flag pairs, some ops carrying
scheduling annotations, all in one block of one function. The fast path and xDSL's own parser
(`parse_text(..., fast_path=False)`) are timed side by side in one process.
"""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
import tempfile
import time

import figures
from xdsl.printer import Printer

from tilesched.ir import parse_text, print_module, verify_module
from tilesched.target import load_target

SIZES = (1000, 5000, 10000, 20000, 50000)
XDSL_SIZES = (1000, 5000, 10000)  # xDSL's parser alone: ~0.2 ms per op, so fewer sizes

_T = 'memref<16x64xf16, "UB">'
_G = 'memref<64x16x64xf16, "GM">'
_S = 'memref<16x64xf16, "GM">'


def unrolled_program(ops: int) -> str:
    """One function whose block holds about ``ops`` ops (a synchronized vector kernel, unrolled)."""
    lines = [f"func.func @unrolled(%x: {_G}, %y: {_G}) {{"]
    lines += [f"  %c{i} = arith.constant {i} : index" for i in range(64)]
    lines += ["  %cst = arith.constant 1.250000e-01 : f16"]
    lines += [f"  %t{i} = memref.alloc() : {_T}" for i in range(8)]
    k = 0
    while len(lines) < ops:
        a, b, c, e, s = k % 8, (k + 3) % 8, (k + 5) % 8, k % 8, k % 64
        stage = f" {{tile.stage = {k % 2} : i64, tile.order = {k % 7} : i64}}" if k % 4 == 0 else ""
        lines += [
            f"  %in{k} = tile.slot %x[%c{s}] : {_G} -> {_S}",
            f"  tile.load %in{k}, %t{a}{stage} : {_S}, {_T}",
            f'  sync.set_flag "MTE2" -> "V", {e}',
            f'  sync.wait_flag "MTE2" -> "V", {e}',
            f"  tile.add %t{a}, %t{b}, %t{c} : {_T}, {_T}, {_T}",
            f"  tile.muls %t{c}, %cst, %t{c} : {_T}, f16, {_T}",
            f"  tile.exp %t{c}, %t{b} : {_T}, {_T}",
            f'  sync.set_flag "V" -> "MTE3", {e}',
            f'  sync.wait_flag "V" -> "MTE3", {e}',
            f"  %out{k} = tile.slot %y[%c{s}] : {_G} -> {_S}",
            f"  tile.store %t{b}, %out{k} : {_T}, {_S}",
        ]
        k += 1
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def _timed(text: str, target, fast_path: bool) -> tuple[float, float, float]:
    """(parse wall seconds, verify wall seconds, parse + verify CPU seconds) of one run."""
    cpu, start = time.process_time(), time.perf_counter()
    module = parse_text(text, "bench.mlir", fast_path=fast_path)
    parsed = time.perf_counter()
    verify_module(module, target)
    return parsed - start, time.perf_counter() - parsed, time.process_time() - cpu


def growth_exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(seconds) over log(ops): 1 is linear, 2 quadratic."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(s) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def generic_program(ops: int) -> str:
    """:func:`unrolled_program` in MLIR's generic form (what ``mlir-opt
    --mlir-print-op-generic`` and other tools print): ``"tile.load"(%a, %b) : (...) -> ()``."""
    return print_module(parse_text(unrolled_program(ops), "bench.mlir"), generic=True)


def frontend_rows(form: str = "custom") -> tuple[list[str], list[tuple[int, float]],
                                                 list[tuple[int, float]], str]:
    """The table rows, (ops, wall seconds) and (ops, CPU seconds) of parse + verify, and the
    largest text, for the program written in ``form`` ("custom" or "generic")."""
    target = load_target("ascend-a2")
    rows = []
    wall_points, cpu_points, largest = [], [], ""
    for size in SIZES:
        text = unrolled_program(size) if form == "custom" else generic_program(size)
        count = unrolled_program(size).count("\n  ") - 1
        parse, verify, cpu = _timed(text, target, fast_path=True)
        slow, speedup = "—", "—"
        if size in XDSL_SIZES:
            xdsl_parse = _timed(text, target, fast_path=False)[0]
            slow, speedup = f"{xdsl_parse:.2f}", f"{xdsl_parse / parse:.1f}x"
        total = parse + verify
        wall_points.append((count, total))
        cpu_points.append((count, cpu))
        figures.add_row("frontend", "runtime" if form == "custom" else "runtime_generic",
                        ops=count, seconds=total, cpu_seconds=cpu)
        rows.append(f"| {form} | {count} | {len(text) / 1e6:.1f} | {parse:.2f} | {verify:.2f} "
                    f"| {total:.2f} | {cpu:.2f} | {cpu / count * 1e6:.0f} | {slow} | {speedup} |")
        largest = text
    return rows, wall_points, cpu_points, largest


def print_seconds(text: str) -> tuple[float, float, float]:
    """(wall, CPU) seconds of printing the parsed ``text`` back (what ``opt -o`` does), and
    the same for xDSL's own printer (``print_module`` must write the same text faster)."""
    module = parse_text(text, "bench.mlir")
    cpu, start = time.process_time(), time.perf_counter()
    ours = print_module(module)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    stream, xdsl_cpu = io.StringIO(), time.process_time()
    Printer(stream=stream).print_op(module)
    xdsl_cpu = time.process_time() - xdsl_cpu
    assert ours == stream.getvalue().rstrip("\n") + "\n"
    return wall, cpu, xdsl_cpu


def cli_seconds(text: str, pipeline: str = "verify") -> tuple[float, float]:
    """(wall, CPU) seconds of ``tilesched opt FILE -p PIPELINE -o /dev/null`` in a fresh
    process (startup, parse, verify, passes, print)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.mlir")
        with open(path, "w") as out:
            out.write(text)
        before = os.times()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tilesched.cli", "opt", path, "-p", pipeline,
                        "-o", os.devnull], check=True)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        return time.perf_counter() - start, cpu


def run() -> str:
    loads = [os.getloadavg()[0]]
    rows, points, cpu_points, largest = frontend_rows("custom")
    generic_rows, generic_points, generic_cpu, generic_largest = frontend_rows("generic")
    loads.append(os.getloadavg()[0])
    exponent, cpu_exponent = growth_exponent(points), growth_exponent(cpu_points)
    generic_exponent = growth_exponent(generic_cpu)
    n, seconds = points[-1]
    cpu_seconds = cpu_points[-1][1]
    cli, cli_cpu = cli_seconds(largest)
    generic_cli, generic_cli_cpu = cli_seconds(generic_largest)
    sync_cli, sync_cli_cpu = cli_seconds(largest, "insert-sync")
    generic_sync, generic_sync_cpu = cli_seconds(generic_largest, "insert-sync")
    printed, printed_cpu, xdsl_print_cpu = print_seconds(largest)
    loads.append(os.getloadavg()[0])
    figures.add_row("frontend", "cli", form="custom", pipeline="verify", seconds=cli,
                    cpu_seconds=cli_cpu)
    figures.add_row("frontend", "cli", form="generic", pipeline="verify", seconds=generic_cli,
                    cpu_seconds=generic_cli_cpu)
    figures.add_row("frontend", "cli", form="custom", pipeline="insert-sync", seconds=sync_cli,
                    cpu_seconds=sync_cli_cpu)
    figures.add_row("frontend", "cli", form="generic", pipeline="insert-sync",
                    seconds=generic_sync, cpu_seconds=generic_sync_cpu)
    shown_loads = " / ".join(f"{x:.2f}" for x in loads)
    return "\n".join([
        "## frontend: parse + verify",
        "",
        "One block of one function, a synchronized unrolled vector kernel (slots, loads, vector",
        "ops, stores, set/wait flags; every fourth load annotated with tile.stage/tile.order), on",
        "ascend-a2, written in custom syntax and in MLIR's generic form (`\"tile.load\"(%a, %b) :",
        "(...) -> ()`, what `mlir-opt --mlir-print-op-generic` prints). One run per size; 1-minute",
        f"load average {shown_loads} (start / after the tables / end) on 2 cores (other jobs",
        "running: absolute wall seconds are noisy, CPU seconds, the growth exponent and the speedup",
        "less so).",
        "",
        "| form | ops | MB | parse s | verify s | parse + verify s | CPU s | µs per op (CPU) "
        "| xDSL parser alone s | fast path speedup |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        *generic_rows,
        "",
        f"Growth exponent of parse + verify over {points[0][0]}..{n} ops (least-squares slope of",
        f"log seconds over log ops; 1 = linear): **{exponent:.2f}** (wall), **{cpu_exponent:.2f}** (CPU);",
        f"generic form **{generic_exponent:.2f}** (CPU).",
        f"Goal (issue 11): parse + verify of 50k ops in < 5 s; measured **{seconds:.2f} s** wall",
        f"({cpu_seconds:.2f} s CPU) for {n} ops. Goal (issue 24): the same in generic form in < 4 s",
        f"CPU: measured **{generic_cpu[-1][1]:.2f} s CPU** ({generic_points[-1][1]:.2f} s wall) on",
        f"{len(generic_largest) / 1e6:.1f} MB (before the generic fast path: 15.4 s to `opt -p verify`).",
        "",
        "End to end, `tilesched opt FILE -p PIPELINE -o /dev/null` on the 50k-op files in a fresh",
        "process (startup, parse, verify, passes, print):",
        "",
        "| form | MB | pipeline | wall s | CPU s |",
        "|---|---:|---|---:|---:|",
        f"| custom | {len(largest) / 1e6:.1f} | verify | {cli:.1f} | {cli_cpu:.1f} |",
        f"| generic | {len(generic_largest) / 1e6:.1f} | verify | {generic_cli:.1f} | {generic_cli_cpu:.1f} |",
        f"| custom | {len(largest) / 1e6:.1f} | insert-sync | {sync_cli:.1f} | {sync_cli_cpu:.1f} |",
        f"| generic | {len(generic_largest) / 1e6:.1f} | insert-sync | {generic_sync:.1f} "
        f"| {generic_sync_cpu:.1f} |",
        "",
        "Goal (issue 24): `opt -p insert-sync` on the generic file < 15 s CPU (issue 11 measured",
        f"62 s for `-p verify` on the custom file before). Printing the {n} ops back",
        f"(`print_module`, what `opt -o` writes): {printed:.2f} s wall, {printed_cpu:.2f} s CPU;",
        f"xDSL's own printer, same text: {xdsl_print_cpu:.2f} s CPU.",
        "",
        "The \"xDSL parser alone\" column reads the same text with `parse_text(..., fast_path=False)`:",
        "every op through xDSL's parser (with the line table and type cache, without which it was",
        "quadratic). The fast path (`ir/fast_parse.py`) reads tile ops, views/slots and set/wait",
        "flags in custom syntax, and the generic form of every op without regions (tile, sync,",
        "arith, memref.alloc, ...; `scf.for` / `scf.if` headers go through xDSL, their bodies through",
        "the fast path), with regular expressions, dictionaries and types read once per spelling,",
        "and xDSL's own operand resolution. tests/ir/test_fast_parse.py checks both paths give the",
        "same IR and the same errors on every example and lit input, on random programs in both",
        "forms and on damaged generic text.",
    ])


if __name__ == "__main__":
    print(run())
