"""End-of-run check of counter-based barriers (DESIGN.md §4 violations).

Flag checks happen while the engine streams (``flags.py``); this module holds what can only be
judged once every issuer group has stopped.
"""

from __future__ import annotations

from tilesched.sim.code.program import Program
from tilesched.sim.result import Findings


def check_barriers(p: Program, bar_count: list[int], findings: Findings) -> None:
    """Issuer groups that executed different numbers of barriers (counter-based rendezvous)."""
    if len(bar_count) > 1 and len(set(bar_count)) > 1:
        counts = ", ".join(f"{p.agents[i].name} {n}" for i, n in enumerate(bar_count))
        findings.add("unbalanced-barriers",
                     f"issuer groups executed different numbers of barriers ({counts}); the extra "
                     f"ones met no partner")
