"""``tilesched modulo GRAPH.graphml... [--resources RM.xml] [--exact] [--json]``.

Modulo-schedules HatScheT-format graphs (DESIGN.md §5, docs/modulo.md) in one process. Without
``--resources`` each graph's resource model is the ``graphN_RM.xml`` beside it. ``--json`` prints
one object per graph and line: ``{graph, ii, mii, res_mii, rec_mii, stages, valid, starts,
seconds}`` plus extra keys (``fine_density_mii``, ``lower_bound``, ``length``, ``method``,
``arms``; with ``--exact`` the proof under ``exact``). Every schedule printed is checked by the
independent validator (``valid``). Exit 0; 2 on bad input, with a located message.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from tilesched.diagnostics import TileschedError
from tilesched.schedule.modulo.exact import ExactResult, exact_min_ii
from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph
from tilesched.schedule.modulo.hatschet import load_graph
from tilesched.schedule.modulo.scheduler import ModuloResult, modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``modulo`` subcommand."""
    parser = sub.add_parser(
        "modulo", help="modulo-schedule HatScheT dependence graphs (II, stages, start times)",
        description="Find a minimum-II modulo schedule for each GRAPH (Rau-style iterative "
                    "modulo scheduling with placement arms; --exact proves the optimum with "
                    "CP-SAT). See docs/modulo.md.")
    parser.add_argument("graphs", nargs="+", metavar="GRAPH.graphml", help="HatScheT GraphML file")
    parser.add_argument("--resources", metavar="RM.xml",
                        help="resource model for every graph (default: graphN_RM.xml beside it)")
    parser.add_argument("--exact", action="store_true",
                        help="prove the minimum II with CP-SAT (reports optimal/feasible/unknown)")
    parser.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                        help="CP-SAT seconds per candidate II with --exact (default: 10)")
    parser.add_argument("--max-ii", type=int, metavar="N", help="give up above this II")
    parser.add_argument("--explain", action="store_true",
                        help="print why each smaller II failed (human output)")
    parser.add_argument("--target", default="ascend-a2", metavar="T",
                        help="accepted for uniformity with the other commands; unused here")
    parser.add_argument("--json", action="store_true", help="one JSON object per graph and line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Schedule every graph; print JSON lines or a table."""
    if args.max_ii is not None and args.max_ii < 1:
        raise TileschedError(f"--max-ii must be positive, got {args.max_ii}")
    if args.time_limit <= 0:
        raise TileschedError(f"--time-limit must be positive, got {args.time_limit}")
    rows = []
    for path in args.graphs:
        graph = load_graph(path, args.resources)
        record = schedule_one(path, graph, args)
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            rows.append(record)
            if args.explain:
                for text in record.get("failures", []):
                    print(text)
    if not args.json:
        print(_table(rows, args.exact), end="")
    return 0


def schedule_one(path: str, graph: ScheduleGraph, args: argparse.Namespace) -> dict:
    """Schedule (and with ``--exact`` prove) one graph; the JSON record."""
    start = time.perf_counter()
    try:
        result = modulo_schedule(graph, max_ii=args.max_ii)
        exact = None
        if args.exact:
            exact = exact_min_ii(graph, upper=result.ii, time_limit=args.time_limit,
                                 max_ii=args.max_ii)
    except GraphError as err:
        raise TileschedError(str(err), loc=path) from None
    ii, starts = result.ii, result.starts
    if exact is not None and exact.starts and (ii is None or exact.ii < ii):
        ii, starts = exact.ii, exact.starts
    seconds = time.perf_counter() - start
    valid = ii is not None and not check_modulo_schedule(graph, ii, starts)
    return _record(path, graph, result, exact, ii, starts, valid, seconds)


def _record(path, graph, result: ModuloResult, exact: ExactResult | None, ii, starts, valid,
            seconds) -> dict:
    """The JSON object of DESIGN.md §5, with extra keys."""
    bounds = result.bounds
    record = {
        "graph": path,
        "ii": ii,
        "mii": bounds.mii,
        "res_mii": bounds.res_mii,
        "rec_mii": bounds.rec_mii,
        "stages": (max(starts.values(), default=0) // ii + 1) if ii else None,
        "valid": valid,
        "starts": starts,
        "seconds": round(seconds, 4),
        "fine_density_mii": bounds.fine_density_mii,
        "lower_bound": result.lower_bound,
        "length": max((t + graph.nodes[v].latency for v, t in starts.items()), default=0),
        "nodes": len(graph.nodes),
        "heuristic_ii": result.heuristic_ii,
        "method": next((a.method for a in result.attempts if a.feasible), None),
        "optimal": result.optimal,
        "arms": dict(sorted(Counter(result.arms.values()).items())),
        "failures": [f.text() for f in result.failures],
    }
    if result.exact is not None:
        record["exact_calls"] = [{"ii": p.ii, "status": p.status, "seconds": round(p.seconds, 4),
                                  "work": round(p.work, 4)} for p in result.exact.proofs]
    if exact is not None:
        record["exact"] = {
            "status": exact.status,
            "ii": exact.ii,
            "lower_bound": exact.lower_bound,
            "seconds": round(exact.seconds, 4),
            "proofs": [{"ii": p.ii, "status": p.status, "method": p.method,
                        "seconds": round(p.seconds, 4)} for p in exact.proofs],
        }
    return record


def _table(rows: list[dict], exact: bool) -> str:
    """A short fixed-width table of the records."""
    head = ["graph", "nodes", "ResMII", "RecMII", "MII", "II", "stages", "valid", "seconds"]
    if exact:
        head.append("exact")
    lines = [head]
    for r in rows:
        line = [r["graph"], r["nodes"], r["res_mii"], r["rec_mii"], r["mii"],
                r["ii"] if r["ii"] is not None else "-", r["stages"] or "-",
                "yes" if r["valid"] else "NO", f"{r['seconds']:.2f}"]
        if exact:
            line.append(r["exact"]["status"])
        lines.append(line)
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    return "".join(
        "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                  for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip() + "\n"
        for line in lines)
