"""``tilesched report``: exit codes like ``sim``, bad input and bad output paths, the page's data."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from tilesched.cli import main
from tilesched.target import load_target

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
GEMM = EXAMPLES / "ascend_gemm.mlir"
LOCATED = re.compile(r"^\S+\.mlir:\d+:\d+: error: ", re.M)


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _page_data(path: pathlib.Path) -> dict:
    text = path.read_text()
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    return json.loads(match.group(1))


def test_racy_program_writes_the_report_and_exits_1(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, stdout, _ = _run(["report", str(GEMM), "-o", str(out)], capsys)
    assert code == 1 and "FAULTY" in stdout and out.is_file()
    (run,) = _page_data(out)["runs"]
    assert len(run["findings"]["races"]) == 8
    race = run["findings"]["races"][0]
    assert race["first"]["events"] and race["second"]["events"] and len(race["focus"]) == 2
    target = load_target("ascend-a2")  # one row per issuer and per unit that is not inline
    units = [u.name for u in target.units.values() if u.kind != "inline"]
    assert [r["name"] for r in run["rows"]] == ["S", *units] and len(units) == 6


def test_pipeline_gives_before_and_after_and_exit_0_when_the_result_is_correct(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, stdout, _ = _run(["report", str(GEMM), "-p", "insert-sync", "-o", str(out), "--json"],
                           capsys)
    assert code == 0
    summary = json.loads(stdout)
    assert [r["label"] for r in summary["runs"]] == ["before", "after"]
    assert summary["runs"][0]["races"] == 8 and summary["runs"][1]["ok"]
    data = _page_data(out)
    before, after = data["runs"]
    assert after["summary"]["syncOps"] > 0 == before["summary"]["syncOps"]
    names = [listing["name"] for listing in data["listings"]]
    assert names == [str(GEMM), str(EXAMPLES / "ascend_gemm.after.mlir")]
    marks = data["listings"][1]["marks"]
    # the lines insert-sync wrote: exactly its sync ops (and the constants of slot-indexed ids)
    assert main(["opt", str(GEMM), "-p", "insert-sync"]) == 0
    synced = capsys.readouterr().out
    assert marks.count("added") == sum(1 for line in synced.splitlines()
                                       if line.strip().startswith("sync.")) > 0
    strings = data["strings"]
    locs = {strings[i] for i in after["ev"]["loc"]}
    assert all(loc.startswith(names[1] + ":") for loc in locs)


@pytest.mark.parametrize("kernel, target", [("cuda_gemm", "cuda-sm80"), ("amd_gemm", "amd-gfx950")])
def test_other_families_have_their_counter_tracks(kernel, target, tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, _ = _run(["report", str(EXAMPLES / f"{kernel}.mlir"), "-p", "insert-sync",
                       "--target", target, "-o", str(out)], capsys)
    assert code == 0
    after = _page_data(out)["runs"][1]
    titles = [track["title"] for track in after["counters"]]
    expected = "outstanding cp.async groups" if kernel == "cuda_gemm" else \
        "barriers passed per issuer group"
    assert titles == [expected]


def test_output_equal_to_the_input_is_refused(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(GEMM.read_text())
    for spelling in (str(src), str(tmp_path / "." / "k.mlir")):
        code, _, err = _run(["report", str(src), "-o", spelling], capsys)
        assert code == 2 and "is the input file" in err
    assert src.read_text() == GEMM.read_text()


@pytest.mark.parametrize("where, message", [
    ("missing/r.html", "no such directory"), ("", "is a directory")])
def test_unwritable_output_is_a_clear_message(tmp_path, capsys, where, message):
    code, out, err = _run(["report", str(GEMM), "-o", str(tmp_path / where)], capsys)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


def test_bad_input_is_located_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text('builtin.module {\n  func.func @f() {\n    "tile.nope"() : () -> ()\n  }\n}\n')
    code, _, err = _run(["report", str(bad), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and LOCATED.search(err)
    assert not (tmp_path / "r.html").exists()


def test_bad_pipeline_and_missing_arg_exit_2(tmp_path, capsys):
    code, _, err = _run(["report", str(GEMM), "-p", "no-such-pass", "-o",
                         str(tmp_path / "r.html")], capsys)
    assert code == 2 and "no-such-pass" in err
    loop = tmp_path / "n.mlir"
    loop.write_text(GEMM.read_text().replace(
        "func.func @ascend_gemm(%a", "func.func @ascend_gemm(%n: index, %a").replace(
        "scf.for %kb = %c0 to %c8", "scf.for %kb = %c0 to %n"))
    code, _, err = _run(["report", str(loop), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and LOCATED.search(err) and "--arg" in err


def test_standard_input(tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(GEMM.read_text()))
    out = tmp_path / "r.html"
    code, _, _ = _run(["report", "-", "-p", "insert-sync", "-o", str(out)], capsys)
    assert code == 0
    assert [listing["name"] for listing in _page_data(out)["listings"]] == [
        "<stdin>", "<stdin>.after.mlir"]


def test_deadlock_is_reported_with_who_waits_for_what(tmp_path, capsys):
    src = tmp_path / "dead.mlir"
    src.write_text(
        'builtin.module {\n  func.func @f(%a: memref<16x16xf16, "GM">) {\n'
        '    %x = memref.alloc() : memref<16x16xf16, "UB">\n'
        '    sync.wait_flag "MTE2" -> "V", 0\n'
        '    tile.exp %x, %x : memref<16x16xf16, "UB">, memref<16x16xf16, "UB">\n'
        "    func.return\n  }\n}\n")
    out = tmp_path / "r.html"
    code, stdout, _ = _run(["report", str(src), "-o", str(out)], capsys)
    assert code == 1 and "deadlock" in stdout
    (run,) = _page_data(out)["runs"]
    (blocked,) = run["findings"]["deadlock"]
    assert blocked["agent"] == "V" and blocked["loc"] == f"{src}:4:5"
    assert "MTE2->V" in blocked["waiting_for"] and run["rows"][blocked["row"]]["name"] == "V"
