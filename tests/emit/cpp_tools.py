"""Finding clang++-19 and the PTO-ISA headers for the tests that compile emitted C++.

Without them those tests skip, unless ``TILESCHED_REQUIRE_CPP=1`` (set by .ci/run), which makes a
missing compiler or header a failure: CI must really compile and run the kernels."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.emit import harness


def headers_and_compiler() -> tuple[pathlib.Path, str] | None:
    try:
        return harness.find_headers(), harness.find_compiler()
    except TileschedError as err:
        if os.environ.get("TILESCHED_REQUIRE_CPP") == "1":
            pytest.fail(f"TILESCHED_REQUIRE_CPP=1 but {err}")
        return None


def require() -> tuple[pathlib.Path, str]:
    found = headers_and_compiler()
    if found is None:
        pytest.skip("clang++-19 or the PTO-ISA headers are missing")
    return found


def compile_only(text: str, folder: pathlib.Path, extra: list[str] = ()) -> str:
    """Syntax-check ``text`` as kernel.cpp with the plain command docs/emit-cpp.md gives (no
    -include or -Wno flags); returns the compiler's stderr (fails on errors)."""
    headers, compiler = require()
    path = folder / "kernel.cpp"
    path.write_text(text)
    result = subprocess.run([compiler, "-std=c++20", "-D__CPU_SIM", *extra, "-fsyntax-only",
                             "-I", str(headers), str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stderr
