"""Analyses reused by every pass: effects, regions and aliasing, dependences."""

from tilesched.analysis.dependence import (
    RAW,
    UNKNOWN,
    WAR,
    WAW,
    Dependence,
    block_dependences,
    loop_carried_dependences,
)
from tilesched.analysis.effects import Access, Effects, effects_of, loop_summary
from tilesched.analysis.regions import Interval, Region, disjoint, root_region

__all__ = ["RAW", "UNKNOWN", "WAR", "WAW", "Access", "Dependence", "Effects", "Interval",
           "Region", "block_dependences", "disjoint", "effects_of", "loop_carried_dependences",
           "loop_summary", "root_region"]
