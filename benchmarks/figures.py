"""Benchmark results as data, and the matplotlib figures BENCHMARKS.md shows.

A bench module records the rows behind its tables with :func:`add_row` / :func:`add_rows`;
``run_all.py`` calls :func:`start` before running a section and :func:`save` after it, which writes
``benchmarks/results/SECTION.json`` (committed: a section that is not re-run keeps its data).
:func:`plot_all` then draws every figure from those files into ``benchmarks/img/*.png`` and
returns the ``figures`` section of BENCHMARKS.md. Figures whose data is missing are left out
(and the section says which).
"""

from __future__ import annotations

import json
import math
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent
RESULTS = ROOT / "results"
IMAGES = ROOT / "img"
_rows: dict[str, dict[str, list[dict]]] = {}


def start(section: str) -> None:
    """Forget what ``section`` recorded before (it is about to run again)."""
    _rows.pop(section, None)


def add_row(section: str, table: str, **fields) -> None:
    """Record one row of one of a section's tables."""
    _rows.setdefault(section, {}).setdefault(table, []).append(fields)


def add_rows(section: str, table: str, rows: list[dict]) -> None:
    """Record many rows (dictionaries of JSON values)."""
    for row in rows:
        add_row(section, table, **row)


def save(section: str) -> None:
    """Write what ``section`` recorded in this run to ``results/SECTION.json``."""
    if section not in _rows:
        return
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{section}.json"
    path.write_text(json.dumps(_rows[section], indent=1, sort_keys=True, default=_plain) + "\n")


def _plain(value):
    """JSON for numpy scalars and other numbers the benches may record."""
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def load(section: str) -> dict[str, list[dict]]:
    path = RESULTS / f"{section}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


# ---------------------------------------------------------------------------- figures


def plot_all() -> str:
    """Draw every figure whose data exists; return the Markdown ``figures`` section."""
    import matplotlib

    matplotlib.use("Agg")
    IMAGES.mkdir(exist_ok=True)
    parts = ["## Figures", "",
             "Drawn by matplotlib from `benchmarks/results/*.json`, the rows the sections above "
             "recorded when they last ran (`benchmarks/figures.py`).", ""]
    missing = []
    for name, title, draw in FIGURES:
        data = draw()
        if data is None:
            missing.append(title)
            continue
        parts += [f"### {title}", "", f"![{title}](benchmarks/img/{name}.png)", "", data, ""]
    if missing:
        parts += ["No data yet for: " + "; ".join(missing) +
                  " (run the sections they come from).", ""]
    return "\n".join(parts)


def _figure(name: str, fig) -> None:
    fig.tight_layout()
    fig.savefig(IMAGES / f"{name}.png", dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)


def modulo_figure() -> str | None:
    """II / optimum over the HatScheT graphs, against graph size: the default mode's final II and,
    for comparison, the heuristic's II before the exact search closes the gap."""
    import matplotlib.pyplot as plt

    rows = [r for r in load("modulo").get("graphs", []) if r.get("ii") and r.get("optimum")]
    if not rows:
        return None
    final = [r["ii"] / r["optimum"] for r in rows]
    heuristic = [r.get("heuristic_ii", r["ii"]) / r["optimum"] for r in rows]
    nodes = [r["nodes"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    left.scatter(nodes, heuristic, s=12, alpha=0.5, color="#f28e2b", label="heuristic alone")
    left.scatter(nodes, final, s=12, alpha=0.7, color="#4e79a7", label="default mode (final)")
    left.set_xscale("log")
    left.set_xlabel("graph nodes")
    left.set_ylabel("II / optimum")
    left.legend(fontsize=7)
    left.set_title(f"default mode at the optimum on {sum(x == 1 for x in final)} of {len(rows)}; "
                   f"heuristic alone on {sum(x == 1 for x in heuristic)}", fontsize=9)
    steps = range(1, len(rows) + 1)
    right.plot(steps, sorted(heuristic), drawstyle="steps-post", color="#f28e2b", label="heuristic alone")
    right.plot(steps, sorted(final), drawstyle="steps-post", color="#4e79a7", label="default mode (final)")
    right.set_xlabel("graphs (sorted)")
    right.set_ylabel("II / optimum")
    right.legend(fontsize=7)
    right.set_title(f"worst: final {max(final):.3f}, heuristic alone {max(heuristic):.3f}", fontsize=9)
    _figure("modulo_ii", fig)
    return (f"II divided by the proven optimum for each of the {len(rows)} HatScheT graphs: the default "
            f"mode's final II (heuristic, then the exact search where a gap to the lower bound remains) "
            f"and the heuristic's II alone (section *modulo*).")


def cycles_figure() -> str | None:
    """cycles / bound per kernel and pass pipeline (sections sync and pipeline)."""
    import matplotlib.pyplot as plt

    rows = [dict(r, kernel=f"{r['kernel']} ({r['target']})")
            for r in load("sync").get("kernels", [])]
    for r in load("pipeline").get("gemm", []):
        kernel = f"GEMM {r['blocks']} K blocks ({r['target']})"
        rows.append({"kernel": kernel, "pipeline": "insert-sync", "cycles": r["plain"],
                     "bound": r["bound"]})
        rows.append({"kernel": kernel, "pipeline": "software-pipeline (+ insert-sync)",
                     "cycles": r["piped"], "bound": r["bound"]})
    rows = [r for r in rows if r.get("bound")]
    if not rows:
        return None
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    pipelines = list(dict.fromkeys(r["pipeline"] for r in rows))
    colors = ["#bab0ac", "#4e79a7", "#59a14f", "#f28e2b", "#e15759"]
    fig, ax = plt.subplots(figsize=(10, 0.3 * len(kernels) * max(1, len(pipelines) / 2) + 1.2))
    height = 0.8 / len(pipelines)
    for k, pipeline in enumerate(pipelines):
        ys, xs = [], []
        for i, kernel in enumerate(kernels):
            match = [r for r in rows if r["kernel"] == kernel and r["pipeline"] == pipeline]
            if match:
                ys.append(i + (k - (len(pipelines) - 1) / 2) * height)
                xs.append(match[0]["cycles"] / match[0]["bound"])
        ax.barh(ys, xs, height=height, label=pipeline, color=colors[k % len(colors)])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(kernels)), kernels)
    ax.invert_yaxis()
    ax.set_xlabel("simulated cycles / lower bound (1.0 = the bound)")
    ax.legend(loc="lower right", fontsize=8)
    _figure("cycles_bound", fig)
    return ("Simulated cycles over the machine's lower bound, per kernel and pass pipeline "
            "(sections *sync* and *pipeline*; every program race-free).")


def pass_time_figure() -> str | None:
    """Pass time against program size (sections reorder, sync, frontend and modulo)."""
    import matplotlib.pyplot as plt

    reorder = load("reorder").get("runtime", [])
    sync = load("sync").get("runtime", [])
    frontend = load("frontend").get("runtime", [])
    graphs = [r for r in load("modulo").get("graphs", []) if r.get("seconds") is not None]
    if not (reorder or sync or frontend or graphs):
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    series: dict[str, list[tuple[int, float]]] = {}
    for r in reorder:
        series.setdefault(f"reorder-events, {r['input']}", []).append(
            (r["statements"], r["reorder_s"]))
        series.setdefault(f"insert-sync, {r['input']}", []).append(
            (r["statements"], r["insert_sync_s"]))
    for r in sync:
        series.setdefault("insert-sync, random vector kernel", []).append(
            (r["statements"], r["seconds"]))
    for r in frontend:
        series.setdefault("parse + verify, unrolled vector kernel", []).append((r["ops"], r["seconds"]))
    for name, points in series.items():
        points.sort()
        left.plot([p[0] for p in points], [max(p[1], 1e-4) for p in points], marker="o",
                  label=f"{name} ({_slope(points)})")
    if not series:
        left.set_axis_off()
    else:
        left.set_xscale("log")
        left.set_yscale("log")
        left.set_xlabel("statements")
        left.set_ylabel("seconds")
        left.legend(fontsize=7)
        left.set_title("reorder-events, insert-sync, parse + verify")
    if not graphs:
        right.set_axis_off()
    else:
        right.scatter([r["nodes"] for r in graphs], [max(r["seconds"], 1e-4) for r in graphs],
                      s=10, alpha=0.6, color="#76b7b2")
        right.set_xscale("log")
        right.set_yscale("log")
        right.set_xlabel("graph nodes")
        right.set_ylabel("seconds")
        right.set_title("modulo-schedule (default mode), HatScheT graphs")
    _figure("pass_time", fig)
    return ("Pass time against program size, log-log; the legend gives the fitted growth "
            "exponent between the smallest and the largest size (sections *reorder*, *sync*, "
            "*frontend*, *modulo*; one run each on a shared machine).")


def report_figure() -> str | None:
    """tilesched report: generation time and file size against simulated ops."""
    import matplotlib.pyplot as plt

    rows = load("report").get("scaling", [])
    if not rows:
        return None
    rows.sort(key=lambda r: r["ops"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    ops = [r["ops"] for r in rows]
    for key, label in (("total_s", "whole command (wall)"),
                       ("total_cpu_s", "whole command (CPU)"), ("lower_s", "parse + lower"),
                       ("simulate_s", "simulate (recording)"), ("page_s", "build + write page")):
        if all(key in r for r in rows):
            left.plot(ops, [max(r[key], 1e-3) for r in rows], marker="o", label=label)
    left.axhline(5, color="#d62728", linestyle="--", linewidth=0.8, label="target (100k ops)")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("simulated ops")
    left.set_ylabel("seconds")
    left.legend(fontsize=7)
    right.plot(ops, [r["mb"] for r in rows], marker="o", color="#59a14f")
    right.axhline(20, color="#d62728", linestyle="--", linewidth=0.8)
    right.set_xscale("log")
    right.set_xlabel("simulated ops")
    right.set_ylabel("report size (MB)")
    _figure("report_scaling", fig)
    return "Report generation time and file size against simulated ops (section *report*)."


def _slope(points: list[tuple[int, float]]) -> str:
    """Growth exponent between the first and last point, as text."""
    (x0, y0), (x1, y1) = points[0], points[-1]
    if x1 <= x0 or y0 <= 0 or y1 <= 0:
        return "-"
    return f"~n^{math.log(y1 / y0) / math.log(x1 / x0):.2f}"


FIGURES = [
    ("modulo_ii", "II / optimum over the HatScheT graphs", modulo_figure),
    ("cycles_bound", "Cycles / bound per kernel and pass pipeline", cycles_figure),
    ("pass_time", "Pass time against program size", pass_time_figure),
    ("report_scaling", "tilesched report: time and size against simulated ops", report_figure),
]
