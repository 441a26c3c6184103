"""All 354 HatScheT graphs: every heuristic schedule passes the independent validity check.

Timing and the comparison with proven optima live in ``benchmarks/bench_modulo.py``.
"""

from __future__ import annotations

import pathlib

import pytest

from tilesched.schedule.modulo.hatschet import load_graph
from tilesched.schedule.modulo.scheduler import modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule

# CI clones the repository with ``shared/`` beside it.
HATSCHET = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "benchmarks" / "hatschet"
GRAPHS = sorted(str(p.relative_to(HATSCHET)) for p in HATSCHET.glob("*/*/*.graphml"))


def test_the_whole_set_is_there(hatschet_dir):
    assert len(GRAPHS) == 354


@pytest.mark.parametrize("name", GRAPHS or ["(missing)"])
def test_schedule_is_valid(hatschet_dir, name):
    graph = load_graph(hatschet_dir / name)
    result = modulo_schedule(graph)
    assert result.ii is not None, result.failures[-1].text()
    assert check_modulo_schedule(graph, result.ii, result.starts) == []
    assert result.ii >= result.lower_bound >= result.mii
    assert result.stages == max(result.starts.values()) // result.ii + 1
