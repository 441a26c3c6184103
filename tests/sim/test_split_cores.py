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


def test_sync_free_twin_races_across_cores():
    result = _sim(EXAMPLES / "ascend_mix_gemm_epilogue_free.mlir")
    assert result.returncode == 1
    races = [line for line in result.stdout.splitlines() if line.strip().startswith("race on")]
    assert any("[AIC." in line and "[AIV0." in line for line in races) or any(
        "c_ws" in line or "GM" in line for line in races), result.stdout


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


@pytest.mark.parametrize("name", ["ascend_mix_gemm_epilogue_free", "ascend_mix_flash_attention_free"])
def test_insert_sync_makes_the_sync_free_twin_clean(tmp_path, name):
    out = tmp_path / "synced.mlir"
    done = subprocess.run([sys.executable, "-m", "tilesched.cli", "opt", "-p", "insert-sync", "--target",
                           "ascend-a2-mix", str(EXAMPLES / f"{name}.mlir"), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = _sim(out)
    assert result.returncode == 0, result.stdout + result.stderr
