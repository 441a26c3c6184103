"""Late faults decided without simulating every iteration (issue 24; docs/simulator.md,
"Steady state"): a double-buffered stream synchronized by insert-sync, whose iteration 1000 (an
``scf.if %i == 1000``) waits for an event id nothing sets (deadlock), sets a flag nothing waits
for (leak) or writes a tile without a flag (race). The issuer runs ahead of its units (no
``barrier_all`` in the loop), so after the deadlock the blocked units' queues grow every
iteration unless the simulator sees they are blocked for good.
"""

from __future__ import annotations

import pathlib
import sys

import pytest
from test_sim_steady import assert_same, comparable, simulate_both

from tilesched.ir import parse_text
from tilesched.sim.code.stream import stream_module
from tilesched.sim.engine.engine import Engine
from tilesched.sim.run import run_engine
from tilesched.target import load_target

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "benchmarks"))
from sim_kernels import late_fault  # noqa: E402

A2 = load_target("ascend-a2")
FAULTS = ["deadlock", "leak", "race"]


def program(trips: int, fault: str):
    return parse_text(late_fault(trips, fault), "late.mlir")


@pytest.mark.parametrize("fault", FAULTS)
def test_late_fault_is_found_and_the_iterations_after_it_are_extrapolated(fault):
    steady, engine = assert_same(program(3000, fault), A2)
    assert not steady.ok
    assert (steady.deadlock is not None) == (fault == "deadlock")
    assert bool(steady.races) == (fault == "race")
    (loop,) = steady.steady_state
    assert loop["extrapolations"] == 2  # before the fault and after it
    assert loop["skipped_iterations"] > 2900
    if fault == "deadlock":
        assert len(engine.steady.dead) == 3  # MTE2, V and MTE3 are blocked for good


@pytest.mark.parametrize("fault", FAULTS)
def test_late_fault_at_a_billion_iterations(fault):
    """10^9 iterations, default --max-ops: decided with a few hundred ops simulated; cycles and
    bound continue the line through two fully simulated trip counts, findings are theirs."""
    fulls = {}
    for trips in (8000, 9000):
        fulls[trips], _, _ = simulate_both(program(trips, fault), A2)
    big = 10 ** 9
    result = run_engine(Engine(stream_module(program(big, fault), A2, max_ops=2_000_000),
                               steady=True))
    assert result.ops_simulated < 2_000
    for field in ("cycles", "bound"):
        a, b = getattr(fulls[8000], field), getattr(fulls[9000], field)
        slope = (b - a) // 1000
        assert getattr(result, field) == b + slope * (big - 9000)
    found, expected = comparable(result), comparable(fulls[9000])
    for key in ("deadlock", "violations", "races", "race_counts", "peak_live_events"):
        assert found[key] == expected[key], key
