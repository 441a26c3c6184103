"""`tilesched demo` runs the flow on a bundled kernel: every synchronized row is race-free,
fault-free and equivalent to the kernel as written, which itself has races."""

import json

import pytest

from tilesched.cli import main
from tilesched.examples import example_names


@pytest.mark.parametrize("kernel", ["ascend_gemm", "cuda_gemm"])
def test_demo_rows_are_correct(kernel, capsys):
    assert kernel in example_names()
    code = main(["demo", "--kernel", kernel, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = {row["label"]: row for row in report["rows"]}
    assert rows["as written (no sync)"]["races"] > 0
    for row in report["rows"][1:]:
        assert row["error"] == "" and row["races"] == 0 and row["faults"] == 0, row
        assert row["equivalent"] is True
        assert row["cycles"] >= row["bound"] > 0
        # microseconds at the target's clock: ascend-a2 gives one, cuda-sm80 none
        clock = {"ascend_gemm": 1.85e9, "cuda_gemm": None}[kernel]
        assert row["time_us"] == (None if clock is None else pytest.approx(row["cycles"] / clock * 1e6,
                                                                             abs=1e-4))


def test_demo_table(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "insert-sync" in out and "naive sync" in out and "cycles" in out
