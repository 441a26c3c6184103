"""Prove the minimum II of every HatScheT graph (and of its multi-cycle variant) and record how.

``python benchmarks/hatschet_optima.py`` writes ``benchmarks/data/hatschet_optima.json``, the
reference ``bench_modulo.py`` and ``tests/schedule/modulo/test_hatschet_benchmark.py`` check
the default mode against. For each graph:

- ``optimum``: an II with a schedule that passes the independent validity check
  (``feasible_by``: ``heuristic``, or ``exact`` when CP-SAT found it), every smaller II down to
  MII proved infeasible;
- ``infeasible``: for each II from MII to the optimum, the proofs: ``proved_by`` (a refutation
  rule of ``schedule/modulo/bounds.py``, or ``cp-sat``), and ``cp_sat``, the verdict of CP-SAT
  alone (no refutations, no shared preprocessing beyond the decomposition) on that II as an
  independent check: ``infeasible``, or ``unknown`` when it ran out of time (then the proof
  rests on the rule).

Graphs whose optimum is MII need no proof of infeasibility. A graph whose optimum could not be
proved within the limits is recorded with ``status: best-known``. The variant's records (occupancy
``min(latency, 16)``) sit under ``variant``. Takes about an hour on two cores with the default
limits (MachSuite/aes2/graph4 alone 6-8 min: CP-SAT alone runs out its 120 s on two IIs).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

from tilesched.schedule.modulo.exact import exact_min_ii
from tilesched.schedule.modulo.hatschet import load_graph
from tilesched.schedule.modulo.scheduler import modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_modulo import HATSCHET, multi_cycle_variant  # noqa: E402

OUT = ROOT / "data" / "hatschet_optima.json"


def prove(graph, workers: int, time_limit: float) -> dict:
    """The optimum of one graph with its proofs (see the module docstring)."""
    result = modulo_schedule(graph)
    assert result.ii is not None and not check_modulo_schedule(graph, result.ii, result.starts)
    record = {"mii": result.mii, "optimum": result.ii, "status": "optimal",
              "feasible_by": result.method, "infeasible": []}
    proofs: dict[int, list[str]] = {}
    for attempt in result.attempts:
        if attempt.proven and attempt.failure is not None:
            proofs.setdefault(attempt.ii, []).append(attempt.failure.stage)
    if result.exact is not None:
        for proof in result.exact.proofs:
            if proof.status == "infeasible":
                proofs.setdefault(proof.ii, []).append(proof.method)
    if not result.optimal:
        exact = exact_min_ii(graph, upper=result.ii, workers=workers, time_limit=time_limit)
        for proof in exact.proofs:
            if proof.status == "infeasible":
                proofs.setdefault(proof.ii, []).append(proof.method)
        if exact.starts and exact.ii < result.ii:
            assert not check_modulo_schedule(graph, exact.ii, exact.starts)
            record.update(optimum=exact.ii, feasible_by="exact")
        if exact.status != "optimal":
            record["status"] = "best-known"
    for ii in range(record["mii"], record["optimum"]):
        alone = exact_min_ii(graph, upper=ii + 1, lower=ii, workers=workers, bounds=False,
                             time_limit=time_limit)
        verdict = alone.proofs[0].status if alone.proofs else "not run"
        assert verdict != "feasible", f"II {ii} was refuted but CP-SAT found a schedule"
        by = sorted(set(proofs.get(ii, [])))
        if not by and verdict == "infeasible":
            by = ["cp-sat"]
        if not by:
            record["status"] = "best-known"
        record["infeasible"].append({"ii": ii, "proved_by": by, "cp_sat": verdict})
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=120.0,
                        help="CP-SAT seconds per II (default 120)")
    parser.add_argument("--variant-time-limit", type=float, default=20.0,
                        help="CP-SAT seconds per II for the multi-cycle variant (default 20)")
    parser.add_argument("--only", nargs="*", default=None, help="graph names (default: all)")
    parser.add_argument("--skip-variant", action="store_true",
                        help="keep the recorded multi-cycle variant records")
    parser.add_argument("--no-variant", action="store_true",
                        help="do not prove the multi-cycle variant (keep what is recorded)")
    args = parser.parse_args()
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    data.setdefault("graphs", {})
    data.setdefault("variant", {})
    for path in sorted(HATSCHET.glob("*/*/*.graphml")):
        name = str(path.relative_to(HATSCHET))
        if args.only is not None and name not in args.only:
            continue
        start = time.perf_counter()
        graph = load_graph(path)
        data["graphs"][name] = prove(graph, args.workers, args.time_limit)
        if not args.no_variant and (not args.skip_variant or name not in data["variant"]):
            data["variant"][name] = prove(multi_cycle_variant(graph), args.workers,
                                          args.variant_time_limit)
        variant = data["variant"].get(name)
        print(f"{name}: {data['graphs'][name]['optimum']} {data['graphs'][name]['status']}"
              + (f" (variant {variant['optimum']} {variant['status']})" if variant else "")
              + f" {time.perf_counter() - start:.1f} s", flush=True)
        data["generated_by"] = "python benchmarks/hatschet_optima.py"
        OUT.parent.mkdir(exist_ok=True)
        OUT.write_text(dump(data))
    return 0


def dump(data: dict) -> str:
    """The data file: one line per graph record, sections in a fixed order."""
    lines = ["{", f' "generated_by": {json.dumps(data["generated_by"])},']
    for section in ("graphs", "variant"):
        records = data[section]
        lines.append(f' "{section}": {{')
        lines += [f"  {json.dumps(name)}: {json.dumps(records[name], sort_keys=True)}"
                  + ("," if i < len(records) - 1 else "")
                  for i, name in enumerate(sorted(records))]
        lines.append("  }" + ("," if section == "graphs" else ""))
    return "\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    raise SystemExit(main())
