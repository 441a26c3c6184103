"""End-of-run checks of event flags and barriers (DESIGN.md §4 violations).

Flags are matched by count: the k-th wait of a flag consumes its k-th set. After the run, for each
flag and each set after the first:

- nothing, when the wait that consumed the previous set happens-before this set (the id was free);
- otherwise ``double-set`` when in this run the set came no later than that wait cleared the flag
  (or that wait never ran): the flag was set while set;
- otherwise ``unordered-flag-reuse``: the timing was fine, but nothing orders the consuming wait
  before this set, so another timing could double-set it. Happens-before, not program order,
  decides: a wait on the dst unit written before the next set on the src unit orders nothing
  unless a path (a back-edge flag dst->src, a barrier) leads from it to the src unit;
- ``flag-left-set``: more sets than waits when the program ends.

``peak_live_events["SRC->DST"]`` is the largest number of flags of that directed pair that were set
and not yet consumed at one instant of the run.
"""

from __future__ import annotations

import numpy as np

from tilesched.sim.program import Program
from tilesched.sim.result import Findings

INF = float("inf")


def check_flags(p: Program, flag_sets: list[list], flag_waits: list[list],
                findings: Findings) -> dict[str, int]:
    """Add flag violations to ``findings``; return the peak number of live flags per pair."""
    intervals: dict[str, list[list]] = {}
    for f, flag in enumerate(p.flags):
        sets, waits = flag_sets[f], flag_waits[f]
        _check_reuses(p, flag, sets, waits, findings)
        if len(sets) > len(waits):
            last = p.ops[sets[len(waits)][2]]
            findings.add("flag-left-set", f"{last.loc}: flag {_name(flag)} set here is never waited "
                         f"for ({len(sets) - len(waits)} set(s) left at the end)")
        spans = intervals.setdefault(flag.pair, [[], []])
        spans[0].extend(s[0] for s in sets)
        spans[1].extend(w[0] for w in waits[:len(sets)])
        spans[1].extend([INF] * (len(sets) - len(waits)))
    return {pair: _peak(sets, clears) for pair, (sets, clears) in intervals.items()}


def _check_reuses(p: Program, flag, sets: list, waits: list, findings: Findings) -> None:
    """Judge every set after the first against the wait that consumed the set before it."""
    dst = flag.dst
    paired = min(len(sets) - 1, len(waits))  # sets 1..paired have their previous set consumed
    unordered = [k for k, (s, w) in enumerate(zip(sets[1:paired + 1], waits, strict=False), 1)
                 if w[1] > s[1][dst]]
    for k in unordered:
        if sets[k][0] <= waits[k - 1][0]:
            _double_set(p, flag, sets, k, findings)
        else:
            _unordered_reuse(p, flag, sets[k][2], waits[k - 1][2], findings)
    for k in range(paired + 1, len(sets)):
        _double_set(p, flag, sets, k, findings)


def _name(flag) -> str:
    """``SRC->DST event N`` for messages."""
    return f"{flag.pair} event {flag.event}"


def _double_set(p: Program, flag, sets: list, k: int, findings: Findings) -> None:
    """The k-th set came before the wait consuming set k-1 cleared the flag (or it never did)."""
    findings.add("double-set", f"{p.ops[sets[k][2]].loc}: set_flag {_name(flag)} while the flag is "
                 f"still set (its previous set at {p.ops[sets[k - 1][2]].loc} was not consumed yet)")


def _unordered_reuse(p: Program, flag, set_op: int, wait_op: int, findings: Findings) -> None:
    """The wait that consumed the previous set does not happen-before this set."""
    findings.add("unordered-flag-reuse",
                 f"{p.ops[set_op].loc}: set_flag {_name(flag)} reuses the event id, but the "
                 f"wait_flag at {p.ops[wait_op].loc} that consumed its previous set does not "
                 f"happen-before it; some timing would set the flag twice")


def _peak(sets: list, clears: list) -> int:
    """Largest number of flags live at once (``clears[k]`` ends the flag set at ``sets[k]``).

    A flag is live from its set to the wait that clears it. At one instant, clears of flags set
    earlier come first, then sets, then clears of flags set at that same instant (a flag consumed
    the moment it is set still held its id).
    """
    if not sets:
        return 0
    start = np.asarray(sets, dtype=np.float64)
    end = np.asarray(clears, dtype=np.float64)
    times = np.concatenate([start, end])
    order = np.concatenate([np.ones(len(start)), np.where(end == start, 2.0, 0.0)])
    delta = np.concatenate([np.ones(len(start)), -np.ones(len(end))])
    live = np.cumsum(delta[np.lexsort((order, times))])
    return int(live.max())


def check_barriers(p: Program, bar_count: list[int], findings: Findings) -> None:
    """Issuer groups that executed different numbers of barriers (counter-based rendezvous)."""
    if len(bar_count) > 1 and len(set(bar_count)) > 1:
        counts = ", ".join(f"{p.agents[i].name} {n}" for i, n in enumerate(bar_count))
        findings.add("unbalanced-barriers",
                     f"issuer groups executed different numbers of barriers ({counts}); the extra "
                     f"ones met no partner")
