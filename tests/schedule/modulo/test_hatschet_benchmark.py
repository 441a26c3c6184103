"""All 354 HatScheT graphs: the default mode's schedule passes the independent validity check
and its II is the proven optimum recorded in ``benchmarks/data/hatschet_optima.json``.

The default mode's CP-SAT calls have deterministic work limits, so the II does not depend on the
machine's load. Timing lives in ``benchmarks/bench_modulo.py``.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tilesched.schedule.modulo.hatschet import load_graph
from tilesched.schedule.modulo.scheduler import modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule

# CI clones the repository with ``shared/`` beside it.
HATSCHET = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "benchmarks" / "hatschet"
OPTIMA = pathlib.Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "hatschet_optima.json"
GRAPHS = sorted(str(p.relative_to(HATSCHET)) for p in HATSCHET.glob("*/*/*.graphml"))
OPTIMA_RECORDS = json.loads(OPTIMA.read_text())["graphs"]


def test_the_whole_set_is_there(hatschet_dir):
    assert len(GRAPHS) == 354


def test_every_optimum_is_recorded_and_proved(hatschet_dir):
    assert sorted(OPTIMA_RECORDS) == GRAPHS
    assert all(r["status"] == "optimal" for r in OPTIMA_RECORDS.values())
    for record in OPTIMA_RECORDS.values():  # every II from MII below the optimum has a proof
        assert [p["ii"] for p in record["infeasible"]] == list(range(record["mii"],
                                                                      record["optimum"]))
        assert all(p["proved_by"] and p["cp_sat"] != "feasible" for p in record["infeasible"])


@pytest.mark.parametrize("name", GRAPHS or ["(missing)"])
def test_default_mode_is_valid_and_optimal(hatschet_dir, name):
    graph = load_graph(hatschet_dir / name)
    result = modulo_schedule(graph)
    assert result.ii is not None, result.failures[-1].text()
    assert check_modulo_schedule(graph, result.ii, result.starts) == []
    assert result.ii >= result.lower_bound >= result.mii
    assert result.stages == max(result.starts.values()) // result.ii + 1
    assert result.ii == OPTIMA_RECORDS[name]["optimum"]

