"""``tilesched sim`` and ``tilesched equiv`` on the command line (DESIGN.md §5)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tilesched.cli import main
from tilesched.commands.sim import interrupted
from tilesched.sim.run import FullRun

KERNEL = """
builtin.module {{
  func.func @k(%x: memref<16x16xf16, "GM">, %y: memref<16x16xf16, "GM">, %n: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ub = memref.alloc() : memref<16x16xf16, "UB">
    %out = memref.alloc() : memref<16x16xf16, "UB">
    scf.for %i = %c0 to %n step %c1 {{
      tile.load %x, %ub : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
      {sync1}
      tile.exp %ub, %out : memref<16x16xf16, "UB">, memref<16x16xf16, "UB">
      {sync2}
      tile.store %out, %y : memref<16x16xf16, "UB">, memref<16x16xf16, "GM">
      {sync3}
    }}
    func.return
  }}
}}
"""
FLAGS = (
    '"sync.set_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()\n'
    '      "sync.wait_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()',
    '"sync.set_flag"() {src = "V", dst = "MTE3", event = 0 : i64} : () -> ()\n'
    '      "sync.wait_flag"() {src = "V", dst = "MTE3", event = 0 : i64} : () -> ()',
    '"sync.barrier_all"() : () -> ()',
)


def _write(tmp_path, name: str, syncs=FLAGS) -> str:
    path = tmp_path / name
    path.write_text(KERNEL.format(sync1=syncs[0], sync2=syncs[1], sync3=syncs[2]))
    return str(path)


def test_sim_json_contract_fields(tmp_path, capsys):
    path = _write(tmp_path, "ok.mlir")
    assert main(["sim", path, "--arg", "n=3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("cycles", "bound", "races", "deadlock", "violations", "units", "sync_ops",
                "peak_live_events"):
        assert key in report
    assert report["races"] == [] and report["deadlock"] is None and report["violations"] == []
    assert report["units"]["V"]["busy"] > 0 and 0 < report["units"]["V"]["utilization"] <= 1
    assert report["sync_ops"] == 3 * 5
    assert report["peak_live_events"] == {"MTE2->V": 1, "V->MTE3": 1}
    assert report["cycles"] >= report["bound"] > 0


@pytest.mark.parametrize("full", [[], ["--full"]], ids=["steady", "full"])
def test_sim_gives_time_us_when_the_target_has_a_clock(tmp_path, capsys, full):
    """ascend-a2 gives frequency_hz: --json has time_us = cycles at that clock, the text shows
    it beside the cycles; ascend-910a gives no clock: cycles only."""
    path = _write(tmp_path, "ok.mlir")
    assert main(["sim", path, "--arg", "n=3", "--json", *full]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frequency_hz"] > 0
    assert report["time_us"] == pytest.approx(report["cycles"] / report["frequency_hz"] * 1e6, abs=1e-4)
    assert main(["sim", path, "--arg", "n=3", *full]) == 0
    text = capsys.readouterr().out
    assert f"cycles     {report['cycles']}  (" in text and " us at " in text
    assert main(["sim", path, "--arg", "n=3", "--json", "--target", "ascend-910a", *full]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "time_us" not in report and "frequency_hz" not in report
    assert main(["sim", path, "--arg", "n=3", "--target", "ascend-910a", *full]) == 0
    assert " us at " not in capsys.readouterr().out


def test_sim_reports_a_race_and_exits_1(tmp_path, capsys):
    path = _write(tmp_path, "racy.mlir", ("", FLAGS[1], FLAGS[2]))
    assert main(["sim", path, "--arg", "n=2", "--json"]) == 1
    (race,) = json.loads(capsys.readouterr().out)["races"]
    assert race["buffer"] == "ub"
    assert race["first"]["op"] == "tile.load" and race["first"]["unit"] == "MTE2"
    assert race["second"]["op"] == "tile.exp" and race["second"]["unit"] == "V"
    assert race["first"]["loc"].endswith(":9:7") and race["second"]["loc"].endswith(":11:7")


STRAIGHT = """
builtin.module {
  func.func @k(%x: memref<16x16xf16, "GM">, %y: memref<16x16xf16, "GM">) {
    %ub = memref.alloc() : memref<16x16xf16, "UB">
    tile.load %x, %ub : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
    tile.exp %ub, %ub : memref<16x16xf16, "UB">, memref<16x16xf16, "UB">
    tile.store %ub, %y : memref<16x16xf16, "UB">, memref<16x16xf16, "GM">
    func.return
  }
}
"""


@pytest.mark.parametrize("syncs", [FLAGS, ("", FLAGS[1], FLAGS[2])], ids=["clean", "racy"])
def test_sim_full_reads_standard_input_once(monkeypatch, capsys, syncs):
    """``--full`` may simulate a program twice (the compiled core hands a finding over to the
    Python engine): a program read from standard input is read once."""
    text = KERNEL.format(sync1=syncs[0], sync2=syncs[1], sync3=syncs[2])
    reports = []
    for full in ([], ["--full"]):
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        code = main(["sim", "-", "--arg", "n=3", "--json", *full])
        reports.append((code, json.loads(capsys.readouterr().out)))
    assert reports[0] == reports[1]
    assert reports[0][0] == (0 if syncs == FLAGS else 1)


def test_sim_without_loops_is_the_full_simulation(tmp_path, capsys):
    """A function without loops has nothing to extrapolate: the default mode reports what
    ``--full`` reports (the race included)."""
    path = tmp_path / "straight.mlir"
    path.write_text(STRAIGHT)
    reports = []
    for full in ([], ["--full"]):
        assert main(["sim", str(path), "--json", *full]) == 1
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0] == reports[1]
    assert reports[0]["races"] and reports[0]["steady_state"] == []


def test_sim_table_and_trace_file(tmp_path, capsys):
    path = _write(tmp_path, "ok.mlir")
    out = tmp_path / "t.json"
    assert main(["sim", path, "--arg", "n=2", "--trace", str(out)]) == 0
    text = capsys.readouterr().out
    assert "cycles" in text and "bound" in text and "ratio" in text and "verdict    ok" in text
    events = json.loads(out.read_text())["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert {"S", "MTE2", "V", "MTE3"} <= names
    assert any(e["ph"] == "s" for e in events) and any(e["ph"] == "f" for e in events)
    assert any(e["ph"] == "X" and e["name"] == "exp" for e in events)


def test_sim_deadlock_and_violation_exit_1(tmp_path, capsys):
    wait_only = ('"sync.wait_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()', "", "")
    assert main(["sim", _write(tmp_path, "dead.mlir", wait_only), "--arg", "n=1", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["deadlock"]["blocked"][0]["agent"] == "V"
    bad_event = (FLAGS[0].replace("event = 0", "event = 8"), FLAGS[1], FLAGS[2])
    assert main(["sim", _write(tmp_path, "ev.mlir", bad_event), "--arg", "n=1", "--json"]) == 1
    kinds = {v["kind"] for v in json.loads(capsys.readouterr().out)["violations"]}
    assert "event-id-out-of-range" in kinds


def test_sim_bad_input_exits_2_with_location(tmp_path, capsys):
    path = _write(tmp_path, "ok.mlir")
    assert main(["sim", path]) == 2
    assert "ok.mlir:3:" in capsys.readouterr().err
    assert main(["sim", path, "--arg", "n"]) == 2
    broken = tmp_path / "broken.mlir"
    broken.write_text("builtin.module {\n  func.func @k() {\n    tile.nope\n  }\n}\n")
    assert main(["sim", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "broken.mlir:" in err and "tile.nope" in err


@pytest.mark.parametrize(("syncs", "expected"), [(FLAGS, 0), (("", "", ""), 1)])
def test_equiv(tmp_path, capsys, syncs, expected):
    reference = _write(tmp_path, "a.mlir", ("", "", ""))
    candidate = _write(tmp_path, "b.mlir", syncs)
    assert main(["equiv", reference, candidate, "--arg", "n=2"]) == expected
    out = capsys.readouterr().out
    assert ("NOT equivalent" in out) == bool(expected)
    assert main(["equiv", reference, candidate, "--arg", "n=2", "--json"]) == expected
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["equivalent"] == (not expected)
    assert "cycles" in verdict["candidate"]


@pytest.mark.parametrize("pure", [False, True], ids=["native", "python"])
def test_ctrl_c_during_full_simulation_reports_what_was_simulated(tmp_path, pure):
    """Ctrl-C (SIGINT) in the middle of a long ``sim --full``: what was simulated so far, exit 130
    (with the compiled core, and with the pure-Python engine)."""
    path = _write(tmp_path, "long.mlir")
    env = dict(os.environ)
    env.pop("TILESCHED_PURE_PYTHON", None)
    if pure:
        env["TILESCHED_PURE_PYTHON"] = "1"
    cmd = [sys.executable, "-c", "import sys; from tilesched.cli import main; sys.exit(main())",
           "sim", path, "--full", "--arg", "n=100000000", "--max-ops", "2000000000"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    _wait_for_cpu_seconds(proc, 3.0)  # imports and parsing take ~1 s of CPU: then it simulates
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "tilesched sim: interrupted after simulating" in err
    assert "loop at" in err and "iteration" in err and "reached cycle" in err
    assert "Traceback" not in err


def _wait_for_cpu_seconds(proc, seconds: float, timeout: float = 180) -> None:
    """Wait until a child process has used ``seconds`` of CPU time (whatever the load)."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.1)


def test_ctrl_c_while_the_program_is_still_being_read():
    assert interrupted(FullRun(lambda: None)) == ("tilesched sim: interrupted before the "
                                                 "simulation started")
