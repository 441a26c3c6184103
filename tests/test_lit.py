"""Run the lit + FileCheck golden tests (tests/lit) as part of pytest."""

import os
import pathlib
import shutil
import subprocess
import sys

LIT_DIR = pathlib.Path(__file__).parent / "lit"


def test_lit_golden_tests():
    lit = shutil.which("lit", path=os.path.dirname(sys.executable)) or shutil.which("lit")
    assert lit, "the lit package is not installed (pip install -e .[dev])"
    result = subprocess.run([lit, "-q", "-j", "2", str(LIT_DIR)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
