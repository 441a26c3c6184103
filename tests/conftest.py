"""Fixtures every test folder may use: the HatScheT benchmark graphs beside the repository."""

from __future__ import annotations

import pathlib

import pytest

# CI clones the repository with ``shared/`` beside it.
HATSCHET = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "hatschet"


@pytest.fixture
def hatschet_dir() -> pathlib.Path:
    """The benchmark folder, or a skip naming where it was expected."""
    if not HATSCHET.is_dir():
        pytest.skip(f"HatScheT benchmark data not found at {HATSCHET} (clone shared/ beside the repo)")
    return HATSCHET
