"""``tilesched passes``: every registered pass with its options, read from the pass classes."""

from __future__ import annotations

import json

from tilesched.cli import main
from tilesched.transforms.registry import available_passes


def test_lists_every_pass_with_its_options(capsys):
    assert main(["passes"]) == 0
    out = capsys.readouterr().out
    for name in available_passes():
        assert f"\n{name}: " in "\n" + out
    assert "  num-stages (1..64, unset)  cap on the number of stages" in out
    assert "  strategy=all (all|min-max-sum|min-sum-max|min-max)" in out


def test_json_gives_defaults_domains_and_tuning_values(capsys):
    assert main(["passes", "modulo-schedule", "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["name"] == "modulo-schedule"
    assert info["options"]["num-stages"] == {
        "default": None, "help": "cap on the number of stages (unset: no cap)", "low": 1,
        "high": 64, "choices": None, "tune": [None, 2, 3, 4]}


def test_unknown_pass_is_bad_input(capsys):
    assert main(["passes", "nope"]) == 2
    assert "unknown pass 'nope'; valid passes: verify" in capsys.readouterr().err


def test_passes_show_where_they_go_in_a_pipeline(capsys):
    assert main(["passes", "software-pipeline", "reorder-events", "--json"]) == 0
    pipeline, reorder = json.loads(capsys.readouterr().out)
    assert (pipeline["role"], pipeline["needs"]) == ("default", ["tile.stage"])
    assert reorder["families"] == ["flags"]
    assert main(["passes", "modulo-schedule"]) == 0
    assert "[default; targets: all; needs scf.for; provides tile.order, tile.stage]" in \
        capsys.readouterr().out
