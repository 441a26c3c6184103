"""``tilesched modulo``: JSON lines (DESIGN.md §5), the table, exact mode, exit status 2."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from tilesched.cli import main

INPUTS = pathlib.Path(__file__).parents[1] / "schedule" / "modulo" / "Inputs"
RM = (INPUTS / "small_RM.xml").read_text()
GRAPH = (INPUTS / "small.graphml").read_text()
KEYS = {"graph", "ii", "mii", "res_mii", "rec_mii", "stages", "valid", "starts", "seconds"}


def _files(tmp_path):
    for name in ("graph1", "graph2"):
        (tmp_path / f"{name}.graphml").write_text(GRAPH)
        (tmp_path / f"{name}_RM.xml").write_text(RM)
    return [str(tmp_path / "graph1.graphml"), str(tmp_path / "graph2.graphml")]


def test_json_lines_one_per_graph(tmp_path, capsys):
    paths = _files(tmp_path)
    assert main(["modulo", *paths, "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for path, line in zip(paths, lines, strict=True):
        record = json.loads(line)
        assert KEYS <= set(record)
        assert record["graph"] == path and record["valid"] is True
        assert record["res_mii"] == 2 and record["rec_mii"] == 2 and record["ii"] == 2
        assert set(record["starts"]) == {"1", "2"}


def test_table_and_target_option(tmp_path, capsys):
    paths = _files(tmp_path)
    assert main(["modulo", paths[0], "--target", "cuda-sm80"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:6] == ["graph", "nodes", "ResMII", "RecMII", "MII", "II"]
    assert "yes" in out.splitlines()[1]


def test_exact_mode_reports_the_proof(tmp_path, capsys):
    paths = _files(tmp_path)
    assert main(["modulo", paths[0], "--exact", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["exact"]["status"] == "optimal" and record["exact"]["ii"] == 2


def test_explicit_resources(tmp_path, capsys):
    paths = _files(tmp_path)
    other = tmp_path / "wide.xml"
    other.write_text(RM.replace('limit="1"', 'limit="2"'))
    assert main(["modulo", paths[0], "--resources", str(other), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["res_mii"] == 1


def test_bad_input_exits_2_with_a_located_message(tmp_path, capsys):
    bad = tmp_path / "graph1.graphml"
    bad.write_text(GRAPH.replace(">mul<", ">div<"))
    (tmp_path / "graph1_RM.xml").write_text(RM)
    assert main(["modulo", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3:" in err and "error:" in err and "Traceback" not in err
    assert main(["modulo", str(tmp_path / "missing.graphml")]) == 2
    assert "missing.graphml" in capsys.readouterr().err


@pytest.mark.parametrize("graph, located", [
    ("<graphml>" + "<a>" * 100_000 + "</a>" * 100_000 + "</graphml>", ":1:"),
    ('<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY a "aaaaaaaaaa">'
     '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<graphml>&b;</graphml>', ":2:"),
    (GRAPH.replace('"delay">1<', '"delay">1e300<'), ":5:"),
])
def test_hostile_graphml_exits_2_without_a_traceback(tmp_path, graph, located):
    """Issue 11 §1: a graph nested 100k deep, a DTD with nested entities, an absurd delay."""
    path = tmp_path / "graph1.graphml"
    path.write_text(graph)
    (tmp_path / "graph1_RM.xml").write_text(RM)
    proc = subprocess.run([sys.executable, "-m", "tilesched.cli", "modulo", str(path), "--json"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert f"{path}{located}" in proc.stderr and "error:" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_unschedulable_graph_exits_2(tmp_path, capsys):
    graph = GRAPH.replace('<data key="distance">2</data>', '<data key="distance">0</data>')
    (tmp_path / "graph1.graphml").write_text(graph.replace('"delay">1<', '"delay">5<'))
    (tmp_path / "graph1_RM.xml").write_text(RM)
    assert main(["modulo", str(tmp_path / "graph1.graphml")]) == 2
    assert "distance 0" in capsys.readouterr().err


def test_entry_point(tmp_path):
    paths = _files(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "tilesched.cli", "modulo", paths[0], "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["valid"] is True


def test_motion_graph2_needs_ii_above_mii(hatschet_dir, capsys):
    path = str(hatschet_dir / "ChStone" / "motion" / "graph2.graphml")
    assert main(["modulo", path, "--json", "--exact"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["mii"], record["ii"], record["valid"]) == (5, 6, True)
    assert record["exact"]["status"] == "optimal"
