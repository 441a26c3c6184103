"""Fixtures every test folder may use: the HatScheT benchmark graphs beside the repository."""

from __future__ import annotations

import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

# CI runs hypothesis derandomized (HYPOTHESIS_PROFILE=ci in .ci/run) so a landing is judged on the same
# examples every time; local runs keep random exploration, which is how open bugs get found (see the
# known-issue list in docs/simulator.md).
# Generation-speed health checks are timings, and these machines are shared: under load they fail
# tests that are correct (too_slow stopped a full run at a load of 10), so they are off everywhere;
# speed is measured in benchmarks/.
settings.register_profile("default", suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# CI clones the repository with ``shared/`` beside it.
HATSCHET = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "hatschet"


@pytest.fixture
def hatschet_dir() -> pathlib.Path:
    """The benchmark folder, or a skip naming where it was expected."""
    if not HATSCHET.is_dir():
        pytest.skip(f"HatScheT benchmark data not found at {HATSCHET} (clone shared/ beside the repo)")
    return HATSCHET
