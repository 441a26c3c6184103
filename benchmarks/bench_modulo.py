"""Modulo scheduling on the 354 HatScheT graphs: the heuristic against CP-SAT proofs.

``run()`` returns the ``modulo`` section of BENCHMARKS.md. For every graph it runs the heuristic
(``tilesched.schedule.modulo.scheduler``), checks the schedule with the independent validator, and when
the heuristic II is above MII asks exact mode (``modulo_exact``) to decide every II from MII up
to the heuristic's: either all are infeasible (the heuristic is optimal, proved) or CP-SAT finds
a smaller II (a heuristic miss, listed with the heuristic's own diagnostic at that II).
"""

from __future__ import annotations

import pathlib
import statistics
import time
from collections import Counter

import figures

from tilesched.schedule.modulo.exact import exact_min_ii
from tilesched.schedule.modulo.graph import ScheduleGraph
from tilesched.schedule.modulo.hatschet import load_graph
from tilesched.schedule.modulo.scheduler import ARMS, IMS, UNCONSTRAINED, modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule

ROOT = pathlib.Path(__file__).resolve().parent.parent
HATSCHET = ROOT.parent / "shared" / "benchmarks" / "hatschet"
TIME_LIMIT = 120.0  # CP-SAT seconds per candidate II
VARIANT_OCCUPANCY = 16  # multi-cycle variant: occupancy = min(latency, 16) on limited resources
VARIANT_TIME_LIMIT = 10.0  # CP-SAT seconds per II for the variant (gaps of at most 3 IIs)
SIZE_BUCKETS = [(0, 50), (51, 100), (101, 200), (201, 500), (501, 1000), (1001, 10**9)]


def _measure(path: pathlib.Path) -> dict:
    """Heuristic, validity and (when II > MII) exact mode for one graph."""
    graph = load_graph(path)
    start = time.perf_counter()
    result = modulo_schedule(graph)
    seconds = time.perf_counter() - start
    row = {
        "name": str(path.relative_to(HATSCHET)), "nodes": len(graph.nodes), "seconds": seconds,
        "ii": result.ii, "mii": result.mii, "lower": result.lower_bound, "result": result,
        "valid": result.ii is not None and not check_modulo_schedule(graph, result.ii,
                                                                     result.starts),
        "exact": None,
    }
    if result.ii is not None and result.ii > result.mii:
        exact = exact_min_ii(graph, upper=result.ii, time_limit=TIME_LIMIT)
        row["exact"] = exact
        if exact.starts:
            row["exact_valid"] = not check_modulo_schedule(graph, exact.ii, exact.starts)
    return row


def _optimum(row: dict) -> tuple[int | None, bool]:
    """(best known II, proved optimal?)."""
    exact = row["exact"]
    if exact is None:
        return row["ii"], row["ii"] == row["mii"]
    return exact.ii, exact.status == "optimal"


def run() -> str:
    """Measure every graph; return the Markdown section."""
    if not HATSCHET.is_dir():
        return f"## Modulo scheduling (HatScheT)\n\nBenchmark data missing: {HATSCHET}\n"
    paths = sorted(HATSCHET.glob("*/*/*.graphml"))
    wall = time.perf_counter()
    rows = [_measure(p) for p in paths]
    wall = time.perf_counter() - wall
    figures.add_rows("modulo", "graphs", [  # the data of BENCHMARKS.md's figures
        {"graph": r["name"], "nodes": r["nodes"], "ii": r["ii"], "mii": r["mii"],
         "optimum": _optimum(r)[0], "seconds": r["seconds"]} for r in rows])
    parts = [_summary(rows, wall), _distribution(rows), _versus_exact(rows), _timing(rows),
             _arms(rows), _multi_cycle_variant(paths)]
    return "\n".join(parts)


def multi_cycle_variant(graph: ScheduleGraph, cap: int = VARIANT_OCCUPANCY) -> ScheduleGraph:
    """The same loop with every capacity-limited op blocking ``min(latency, cap)`` cycles
    (at least its original occupancy): pipelined units become partly unpipelined ones, as tile
    units are."""
    out = ScheduleGraph()
    for res in graph.resources.values():
        out.add_resource(res.name, res.capacity)
    for node in graph.nodes.values():
        occupancy = node.occupancy
        limited = node.resource is not None and graph.resources[node.resource].capacity is not None
        if limited and occupancy > 0:
            occupancy = max(occupancy, min(node.latency, cap))
        out.add_node(node.id, node.resource, latency=node.latency, occupancy=occupancy,
                     name=node.name)
    for edge in graph.edges:
        out.add_edge(edge.src, edge.dst, delay=edge.delay, distance=edge.distance)
    return out


def _multi_cycle_variant(paths: list[pathlib.Path]) -> str:
    """Heuristic on the multi-cycle variant of every graph; exact mode on small gaps."""
    valid = total = 0
    gaps = []
    seconds = 0.0
    for path in paths:
        graph = multi_cycle_variant(load_graph(path))
        start = time.perf_counter()
        result = modulo_schedule(graph)
        seconds += time.perf_counter() - start
        total += 1
        valid += result.ii is not None and not check_modulo_schedule(graph, result.ii,
                                                                     result.starts)
        if result.ii is not None and result.ii > result.lower_bound:
            exact = None
            if result.ii - result.lower_bound <= 3:
                exact = exact_min_ii(graph, upper=result.ii, time_limit=VARIANT_TIME_LIMIT)
            gaps.append((str(path.relative_to(HATSCHET)), result, exact))
    lines = [f"### Multi-cycle variant (occupancy = min(latency, {VARIANT_OCCUPANCY}))\n",
             "The same 354 loops with every op on a limited resource blocking its unit for "
             f"min(latency, {VARIANT_OCCUPANCY}) cycles, a stand-in for tile units that are not "
             f"fully pipelined. Schedules valid: {valid} / {total}; heuristic time "
             f"{seconds:.1f} s. Graphs whose heuristic II is above the window-density lower "
             f"bound (exact mode, {VARIANT_TIME_LIMIT:.0f} s per II, only where the gap is at "
             "most 3 IIs):\n",
             "| graph | MII | lower bound | heuristic II | exact |", "|---|---:|---:|---:|---|"]
    for name, result, exact in gaps:
        verdict = "not run" if exact is None else f"{exact.status} {exact.ii}"
        lines.append(f"| {name} | {result.mii} | {result.lower_bound} | {result.ii} | "
                     f"{verdict} |")
    return "\n".join(lines) + "\n"


def _summary(rows: list[dict], wall: float) -> str:
    n = len(rows)
    valid = sum(r["valid"] for r in rows)
    at_mii = sum(r["ii"] == r["mii"] for r in rows)
    proved = [r for r in rows if _optimum(r)[1]]
    at_opt = sum(r["ii"] == _optimum(r)[0] for r in proved)
    above_mii = [r for r in proved if _optimum(r)[0] > r["mii"]]
    heuristic = sum(r["seconds"] for r in rows)
    exact_s = sum(r["exact"].seconds for r in rows if r["exact"] is not None)
    return (
        "## Modulo scheduling (HatScheT: 354 ChStone + MachSuite loops)\n\n"
        "Heuristic = `tilesched modulo` (placement arms, then Rau's IMS); exact = CP-SAT "
        f"(`--exact`, {TIME_LIMIT:.0f} s per candidate II, 8 workers), run only where the "
        "heuristic II is above MII. Produced by `benchmarks/bench_modulo.py`.\n\n"
        "| measure | value |\n|---|---|\n"
        f"| graphs | {n} |\n"
        f"| schedules passing the independent validity check | {valid} / {n} |\n"
        f"| optimum proved (II = MII, or exact mode) | {len(proved)} / {n} |\n"
        f"| heuristic II = proven optimum | {at_opt} / {n} ({100 * at_opt / n:.1f}%) |\n"
        f"| heuristic II = MII | {at_mii} |\n"
        f"| proven optimum > MII | {len(above_mii)} ({100 * len(above_mii) / n:.1f}%) |\n"
        f"| heuristic time, whole set (scheduling only) | {heuristic:.1f} s |\n"
        f"| exact-mode time (graphs with II > MII) | {exact_s:.1f} s |\n"
        f"| wall time of this benchmark (load, schedule, validate, prove) | {wall:.1f} s |\n"
    )


def _distribution(rows: list[dict]) -> str:
    gaps = Counter(r["ii"] - r["mii"] for r in rows)
    lines = ["### II - MII (heuristic)\n", "| II - MII | graphs |", "|---:|---:|"]
    lines += [f"| {gap} | {count} |" for gap, count in sorted(gaps.items())]
    ratios = Counter(_ratio_bucket(r["ii"] / r["mii"]) for r in rows)
    lines += ["", "| II / MII | graphs |", "|---|---:|"]
    lines += [f"| {bucket} | {ratios[bucket]} |" for bucket in
              ("1", "(1, 1.1]", "(1.1, 1.25]", "(1.25, 1.5]", "> 1.5") if ratios[bucket]]
    return "\n".join(lines) + "\n"


def _ratio_bucket(ratio: float) -> str:
    for limit, label in ((1.0, "1"), (1.1, "(1, 1.1]"), (1.25, "(1.1, 1.25]"),
                         (1.5, "(1.25, 1.5]")):
        if ratio <= limit:
            return label
    return "> 1.5"


def _versus_exact(rows: list[dict]) -> str:
    lines = ["### Heuristic vs. exact (every graph with heuristic II > MII)\n",
             "| graph | nodes | MII | window-density bound | heuristic II | exact | optimum "
             "| proofs (II: status, seconds) |",
             "|---|---:|---:|---:|---:|---|---:|---|"]
    misses = []
    for r in rows:
        exact = r["exact"]
        if exact is None:
            continue
        proofs = ", ".join(f"{p.ii}: {p.status}" + (" (window)" if p.method != "cp-sat" else
                                                   f" {p.seconds:.1f}s") for p in exact.proofs)
        lines.append(f"| {r['name']} | {r['nodes']} | {r['mii']} | {r['lower']} | {r['ii']} | "
                     f"{exact.status} | {exact.ii} | {proofs} |")
        if exact.ii is not None and exact.ii < r["ii"]:
            misses.append((r, exact))
    lines += ["", "#### Graphs where the heuristic II is above the proven or best known optimum\n"]
    if not misses:
        lines.append("None.")
    for r, exact in misses:
        attempt = next(a for a in r["result"].attempts if a.ii == exact.ii)
        reason = attempt.failure.text(max_rows=4) if attempt.failure else "not attempted"
        note = "" if exact.status == "optimal" else f" (exact status {exact.status})"
        valid = "valid" if r.get("exact_valid") else "INVALID"
        lines.append(f"- **{r['name']}**: heuristic {r['ii']}, optimum {exact.ii}{note}; "
                     f"the CP-SAT schedule at {exact.ii} is {valid}. The heuristic at "
                     f"{exact.ii}:\n\n```\n{reason}\n```\n")
    return "\n".join(lines) + "\n"


def _timing(rows: list[dict]) -> str:
    lines = ["### Heuristic time per graph vs. size\n",
             "| nodes | graphs | mean s | median s | max s | slowest |",
             "|---|---:|---:|---:|---:|---|"]
    for lo, hi in SIZE_BUCKETS:
        bucket = [r for r in rows if lo <= r["nodes"] <= hi]
        if not bucket:
            continue
        times = [r["seconds"] for r in bucket]
        slow = max(bucket, key=lambda r: r["seconds"])
        label = f"{lo}-{hi}" if hi < 10**9 else f"> {lo - 1}"
        lines.append(f"| {label} | {len(bucket)} | {statistics.mean(times):.3f} | "
                     f"{statistics.median(times):.3f} | {max(times):.2f} | {slow['name']} |")
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:5]
    lines += ["", "Slowest: " + ", ".join(
        f"{r['name']} ({r['seconds']:.1f} s, {len(r['result'].attempts)} IIs tried)"
        for r in slowest) + ".\n"]
    return "\n".join(lines)


def _arms(rows: list[dict]) -> str:
    nodes: Counter = Counter()
    graphs: Counter = Counter()
    for r in rows:
        used = Counter(r["result"].arms.values())
        nodes.update(used)
        graphs.update(set(used))
    lines = ["### Which arm placed what\n",
             "Capacity-using nodes placed by each arm at the final II (a group's nodes are "
             "credited to the arm that seated the whole group), and graphs that needed it.\n",
             "| arm | nodes | graphs |", "|---|---:|---:|"]
    for arm in (*ARMS, IMS, UNCONSTRAINED):
        lines.append(f"| {arm} | {nodes[arm]} | {graphs[arm]} |")
    return "\n".join(lines) + "\n"
