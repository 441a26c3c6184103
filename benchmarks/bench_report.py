"""``tilesched report`` at scale: generation time and file size for 1k, 10k and 100k simulated ops,
and how the page behaves when Chromium opens it.

Section `report` of BENCHMARKS.md: `python benchmarks/run_all.py report`. The kernel is the demo
GEMM after `insert-sync` with its K loop running ``n`` times (15 ops per trip). Each size is timed
as the whole command in a fresh process (interpreter start and imports included) and, in this
process, phase by phase. The page is then opened from disk in headless Chromium (network blocked):
time until it is drawn, one redraw of the whole run, and a redraw per pan step zoomed in.
"""

from __future__ import annotations

import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import figures

from tilesched.commands.common import write_output
from tilesched.examples import example_path
from tilesched.ir import parse_file, parse_text, print_module, verify_module
from tilesched.report.html import RunInput, report_html
from tilesched.report.html.listing import listing
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

TRIPS = (66, 666, 6666)  # about 1k, 10k and 100k simulated ops
TARGET_SECONDS, TARGET_MB = 5.0, 20.0


def kernel_text() -> str:
    """The demo GEMM after insert-sync, its K loop bound a function argument ``%n``."""
    target = load_target("ascend-a2")
    module = parse_file(str(example_path("ascend_gemm")))
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
    text = print_module(module)
    edits = [("func.func @ascend_gemm(%a", "func.func @ascend_gemm(%n: index, %a"),
             ("scf.for %kb = %c0 to %c8 step %c1 {\n      %koff = arith.muli %kb, %c64 : index",
              "scf.for %kb = %c0 to %n step %c1 {\n      %kr = arith.remui %kb, %c8 : index\n"
              "      %koff = arith.muli %kr, %c64 : index")]
    for old, new in edits:
        if old not in text:
            raise RuntimeError(f"bench_report: the printed demo kernel changed; cannot find {old!r}")
        text = text.replace(old, new)
    parse_text(text, "bench.mlir")
    return text


def phases(path: pathlib.Path, trips: int, out: pathlib.Path) -> dict:
    """The command's work, phase by phase, in this process."""
    target = load_target("ascend-a2")
    clock = time.perf_counter
    cpu0 = time.process_time()
    t0 = clock()
    module = parse_file(str(path))
    verify_module(module, target)
    trace = lower_module(module, target, {"n": trips})
    t1 = clock()
    result = simulate(trace, record=True)
    t2 = clock()
    page = report_html("bench", [RunInput("program", trace, result, 0)],
                       [listing(str(path), path.read_text())],
                       {"tool": "bench", "file": str(path), "target": target.name,
                        "pipeline": None, "function": "ascend_gemm", "args": [f"n={trips}"],
                        "diagnostics": []})
    write_output(str(out), page)
    t3 = clock()
    return {"ops": result.ops_executed + result.sync_ops, "lower_s": t1 - t0,
            "simulate_s": t2 - t1, "page_s": t3 - t2, "phases_cpu_s": time.process_time() - cpu0,
            "mb": out.stat().st_size / 1e6}


def whole_command(path: pathlib.Path, trips: int, out: pathlib.Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of ``tilesched report`` in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tilesched.cli", "report", str(path), "--arg",
                    f"n={trips}", "-o", str(out)], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_browser(page_path: pathlib.Path) -> dict | None:
    """Open-to-drawn, whole-run redraw and zoomed pan frame times in headless Chromium."""
    try:
        from tilesched.report.html.browser import CHROMIUM, open_report
    except ImportError:
        return None
    if not shutil.which(CHROMIUM):
        return None
    with open_report(page_path) as page:
        timing = page.evaluate("""() => {
            const t = window.tilesched, now = () => performance.now(), out = {};
            out.ready = t.readyMs;
            let a = now(); t.fit(); t.drawNow(); out.fit = now() - a;
            const end = t.data.runs[0].summary.cycles;
            t.zoomTo(end * 0.4, end * 0.4 + end / 200);
            a = now(); for (let i = 0; i < 20; i++) { t.panBy(40); t.drawNow(); }
            out.pan = (now() - a) / 20;
            return out; }""")
    return {"open_s": timing["ready"] / 1000, "fit_ms": timing["fit"], "pan_ms": timing["pan"]}


def run() -> str:
    load = os.getloadavg()[0]
    text = kernel_text()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        src = folder / "gemm_n.mlir"
        src.write_text(text)
        for trips in TRIPS:
            out = folder / f"report_{trips}.html"
            row = phases(src, trips, out)
            row["total_s"], row["total_cpu_s"] = whole_command(src, trips, out)
            row.update(in_browser(out) or {})
            rows.append(row)
            figures.add_row("report", "scaling", **row)
    lines = [
        "## tilesched report", "",
        f"1-minute load average when the run started: {load:.1f} on 2 cores (shared machine: "
        "higher load, longer times).", "",
        "The demo GEMM after insert-sync with its K loop run *n* times (`benchmarks/bench_report.py`)."
        " *whole command*: `tilesched report FILE --arg n=N -o OUT.html` in a fresh process "
        "(interpreter start and imports included); the phases are measured in one process. "
        f"Targets for 100k ops: < {TARGET_SECONDS:.0f} s and < {TARGET_MB:.0f} MB.", "",
        "Wall seconds stretch with the machine's load; CPU seconds (user + system) much less, "
        "so both are given.", "",
        "| simulated ops | whole command s (wall / CPU) | parse + lower s | "
        "simulate (recording) s | build + write page s | phases CPU s | file MB |",
        "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['ops']:,} | {r['total_s']:.2f} / {r['total_cpu_s']:.2f} | "
                     f"{r['lower_s']:.2f} | {r['simulate_s']:.2f} | {r['page_s']:.2f} | "
                     f"{r['phases_cpu_s']:.2f} | {r['mb']:.2f} |")
    big = rows[-1]
    lines += ["", f"At {big['ops']:,} simulated ops: {big['total_s']:.1f} s wall / "
              f"{big['total_cpu_s']:.1f} s CPU for the whole command (target < {TARGET_SECONDS:.0f} s: "
              f"{'met' if big['total_cpu_s'] < TARGET_SECONDS else 'missed'} in CPU time, "
              f"{'met' if big['total_s'] < TARGET_SECONDS else 'missed'} in wall time at this "
              f"load), {big['mb']:.1f} MB (target < {TARGET_MB:.0f} MB: "
              f"{'met' if big['mb'] < TARGET_MB else 'missed'})."]
    if all("open_s" in r for r in rows):
        lines += ["", "The page in headless Chromium (Debian's, via Playwright; opened from disk, "
                  "network blocked): *open* = from navigation start until the page is built (data parsed, "
                  "indexes, tables, listings; the first frame follows); *redraw* = "
                  "drawing the whole run; *pan frame* = one redraw while panning zoomed in "
                  "(mean of 20).", "",
                  "| simulated ops | open s | redraw whole run ms | pan frame ms |",
                  "|---:|---:|---:|---:|"]
        for r in rows:
            lines.append(f"| {r['ops']:,} | {r['open_s']:.2f} | {r['fit_ms']:.1f} | "
                         f"{r['pan_ms']:.1f} |")
    else:
        lines += ["", "(Chromium or Playwright not available: page timings not measured.)"]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())
