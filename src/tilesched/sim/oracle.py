"""Brute-force answers from the simulator, for checking passes that claim a minimum.

Too slow for a pass (exponential in the number of choices), exact for small programs: tests and
benchmarks compare what a pass places with what the simulator shows is needed.
"""

from __future__ import annotations

import itertools

from xdsl.dialects.builtin import UnitAttr

from tilesched.analysis.warp_regions import cluster_barriers
from tilesched.ir import parse_text, print_module
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.sim.trace import Trace
from tilesched.target.model import Target


def fewest_local_barriers(text: str, reference: Trace, target: Target, limit: int = 6) -> int | None:
    """The fewest local cluster barriers with which the program ``text`` (warp-pipelined) is
    race-free and computes what ``reference`` computes, trying every subset of its cluster
    barriers as the local ones; None when it has more than ``limit`` cluster barriers."""
    module = parse_text(text, "oracle.mlir")
    barriers = cluster_barriers(module)
    if len(barriers) > limit:
        return None
    for size in range(len(barriers) + 1):
        for subset in itertools.combinations(range(len(barriers)), size):
            for k, bar in enumerate(barriers):
                if k in subset:
                    bar.properties["local"] = UnitAttr()
                else:
                    bar.properties.pop("local", None)
            trace = lower_module(parse_text(print_module(module), "try.mlir"), target)
            if simulate(trace).ok and equivalent(reference, trace).equivalent:
                return size
    return len(barriers)
