"""The simulator on a split-core target (ascend-a2-mix: docs/simulator.md, "Split cores")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "tilesched" / "examples"


def _sim(path: Path, pure: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pure:
        env["TILESCHED_PURE_PYTHON"] = "1"
    return subprocess.run([sys.executable, "-m", "tilesched.cli", "sim", "--target", "ascend-a2-mix",
                           str(path)], capture_output=True, text=True, env=env, timeout=600)


def _cycles(out: str) -> int:
    return int(re.search(r"cycles\s+(\d+)", out).group(1))


def test_hand_synced_gemm_epilogue_is_clean_and_engines_agree():
    compiled = _sim(EXAMPLES / "ascend_mix_gemm_epilogue.mlir")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    assert "no races, no deadlock, no sync violations" in compiled.stdout
    for unit in ("AIC.FIX", "AIV0.V", "AIV1.MTE2"):  # every core's units are shown
        assert unit in compiled.stdout
    pure = _sim(EXAMPLES / "ascend_mix_gemm_epilogue.mlir", pure=True)
    assert pure.returncode == 0 and _cycles(pure.stdout) == _cycles(compiled.stdout)


def test_hand_synced_flash_attention_is_clean_and_engines_agree():
    compiled = _sim(EXAMPLES / "ascend_mix_flash_attention.mlir")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    pure = _sim(EXAMPLES / "ascend_mix_flash_attention.mlir", pure=True)
    assert pure.returncode == 0 and _cycles(pure.stdout) == _cycles(compiled.stdout)


@pytest.mark.parametrize("name", ["ascend_mix_gemm_epilogue_free",
                                  "ascend_mix_flash_attention_free"])
def test_sync_free_twins_race_across_cores(name):
    result = _sim(EXAMPLES / f"{name}.mlir")
    assert result.returncode == 1
    races = [line for line in result.stdout.splitlines() if line.strip().startswith("race on")]
    across = [line for line in races if "[AIC." in line and "[AIV0." in line]
    assert across, result.stdout  # a GM hand-over between the cube and a vector core


def _equiv(a: Path, b: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilesched.cli", "equiv", "--target",
                           "ascend-a2-mix", str(a), str(b)], capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("name", ["ascend_mix_gemm_epilogue", "ascend_mix_flash_attention"])
def test_hand_synced_equals_its_sync_free_twin(name):
    result = _equiv(EXAMPLES / f"{name}_free.mlir", EXAMPLES / f"{name}.mlir")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ": equivalent" in result.stdout


def test_racy_twin_is_not_equivalent_to_the_hand_synced_one():
    result = _equiv(EXAMPLES / "ascend_mix_gemm_epilogue.mlir",
                    EXAMPLES / "ascend_mix_gemm_epilogue_free.mlir")
    assert result.returncode == 1


def test_removing_a_cross_wait_races(tmp_path):
    text = (EXAMPLES / "ascend_mix_gemm_epilogue.mlir").read_text()
    lines = text.splitlines()
    waits = [i for i, line in enumerate(lines) if "sync.cross_wait \"AIC\" -> \"AIV0\"" in line]
    assert waits
    del lines[waits[0]]
    path = tmp_path / "k.mlir"
    path.write_text("\n".join(lines) + "\n")
    result = _sim(path)
    assert result.returncode == 1
    assert "race on" in result.stdout or "deadlock" in result.stdout or "leftover" in result.stdout


def test_unmatched_cross_wait_deadlocks(tmp_path):
    text = (EXAMPLES / "ascend_mix_gemm_epilogue.mlir").read_text()
    lines = text.splitlines()
    sets = [i for i, line in enumerate(lines) if "sync.cross_set \"AIC\" -> \"AIV0\"" in line]
    del lines[sets[0]]
    path = tmp_path / "k.mlir"
    path.write_text("\n".join(lines) + "\n")
    result = _sim(path)
    assert result.returncode == 1
    assert "deadlock" in result.stdout.lower(), result.stdout
    # located, naming the blocked core's issuer and the flag between the two cores
    assert re.search(r"AIV0\.S blocked at .*k\.mlir:\d+:\d+.*AIC->AIV0", result.stdout), \
        result.stdout


def test_cross_core_id_out_of_range(tmp_path):
    from tilesched.sim.code.program import compile_trace
    from tilesched.sim.trace import MachineModel, TraceBuilder, UnitSpec

    machine = MachineModel("m", {"A.S": UnitSpec("inline"), "A.FIX": UnitSpec(),
                                 "B.S": UnitSpec("inline")}, ("A.S", "B.S"),
                           event_limit=8, cores={"A": "A.S", "B": "B.S"}, cross_event_limit=16)
    b = TraceBuilder(machine)
    for event in (15, 16):
        b.op("sync.set_flag", props={"src": "A.FIX", "dst": "B.S", "event": event,
                                     "cross": ("A", "B")}, issuer="A.S")
        b.op("sync.wait_flag", props={"src": "A.S", "dst": "B.S", "event": event,
                                      "cross": ("A", "B")}, issuer="B.S")
    program = compile_trace(b.build())
    bad = [detail for kind, detail in program.static_violations
           if kind == "event-id-out-of-range"]
    assert len(bad) == 2 and all("id 16" in d for d in bad)  # the set and the wait of id 16


def test_verifier_refuses_a_constant_id_of_16(tmp_path):
    text = (EXAMPLES / "ascend_mix_gemm_epilogue.mlir").read_text()
    path = tmp_path / "k.mlir"
    path.write_text(text.replace('sync.cross_set "AIV0" -> "AIC", 0 after "MTE2"',
                                 'sync.cross_set "AIV0" -> "AIC", 16 after "MTE2"', 1))
    result = _sim(path)
    assert result.returncode == 2
    assert re.search(r"k\.mlir:\d+:\d+: error: .*16", result.stderr), result.stderr


@pytest.mark.parametrize("name", ["ascend_mix_gemm_epilogue_free", "ascend_mix_flash_attention_free"])
def test_insert_sync_makes_the_sync_free_twin_clean(tmp_path, name):
    out = tmp_path / "synced.mlir"
    done = subprocess.run([sys.executable, "-m", "tilesched.cli", "opt", "-p", "insert-sync", "--target",
                           "ascend-a2-mix", str(EXAMPLES / f"{name}.mlir"), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = _sim(out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _equiv(EXAMPLES / f"{name}.mlir", out).returncode == 0


@pytest.mark.parametrize("name", ["ascend_mix_gemm_epilogue", "ascend_mix_flash_attention"])
def test_default_run_equals_full_run(name):
    """Split-core programs are simulated whole: ``sim`` and ``sim --full`` give the same."""
    default = _sim(EXAMPLES / f"{name}.mlir")
    full = subprocess.run([sys.executable, "-m", "tilesched.cli", "sim", "--target",
                           "ascend-a2-mix", "--full", str(EXAMPLES / f"{name}.mlir")],
                          capture_output=True, text=True, timeout=600)
    assert default.returncode == full.returncode == 0
    assert _cycles(default.stdout) == _cycles(full.stdout)


def test_cores_run_concurrently():
    """The cube and the vector core overlap: the hand-synced GEMM + epilogue takes less than
    its cube core's and its vector core's busy time one after the other (a single issuer would
    serialize at every cross-core wait)."""
    out = _sim(EXAMPLES / "ascend_mix_gemm_epilogue.mlir").stdout
    busy = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\S+\.\S+)\s+(\d+)\s", out,
                                                                re.M)}
    cube = sum(v for k, v in busy.items() if k.startswith("AIC."))
    vector = sum(v for k, v in busy.items() if k.startswith("AIV0."))
    assert max(cube, vector) <= _cycles(out) < cube + vector


def test_barrier_all_orders_its_own_core_only():
    from tilesched.sim.run import simulate
    from tilesched.sim.trace import MachineModel, TraceBuilder, UnitSpec

    machine = MachineModel("m", {"A.S": UnitSpec("inline"), "A.M": UnitSpec(),
                                 "B.S": UnitSpec("inline"), "B.V": UnitSpec()}, ("A.S", "B.S"),
                           cores={"A": "A.S", "B": "B.S"}, cross_event_limit=16)
    b = TraceBuilder(machine)
    x, y, z = (b.buffer(n, (4,), "float32", s) for n, s in (("x", "L1"), ("y", "UB"),
                                                            ("z", "UB")))
    b.op("tile.fill", unit="A.M", duration=1000, operands=[b.whole(x)], props={"value": 1.0},
         issuer="A.S")
    b.op("tile.fill", unit="B.V", duration=10, operands=[b.whole(y)], props={"value": 1.0},
         issuer="B.S")
    b.op("sync.barrier_all", issuer="B.S")
    last = b.op("tile.fill", unit="B.V", duration=10, operands=[b.whole(z)],
                props={"value": 1.0}, issuer="B.S")
    result = simulate(b.build(), record=True)
    assert result.ok and result.cycles == 1000
    starts = {result.timeline.op_table[i].loc: start for _, start, _, i in result.timeline.ops}
    assert starts[last.loc] == 10  # after core B's fill, not after core A's long op
