"""Choosing a segment's order: several list-scheduling variants, judged exactly, polished.

:func:`schedule_segment` runs :class:`tilesched.schedule.reorder.event_schedule.EventListScheduler`
with several :class:`Variant` s (strict first), evaluates every finished order with
:func:`tilesched.schedule.reorder.order_cost.evaluate_order` — the flags insert-sync will plan and
the cycles they cost — and keeps the best by the objective:

* ``fit`` (default): the fastest order that fits the event limit, if it is no slower than
  the original order; otherwise (nothing fits, or fitting costs cycles) the variants run
  relaxed and the fastest order found wins;
* ``cycles``: the fastest order, fitting or not.

Ties go to the original order (stability). :func:`local_search` then polishes small
segments by moving single ops within their dependence window (first improvement).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.reorder.event_schedule import STRATEGIES, EventListScheduler, Variant
from tilesched.schedule.reorder.order_cost import (
    Machine,
    OrderCost,
    evaluate_order,
    evaluate_tracked,
)
from tilesched.schedule.reorder.segment import Segment

SMALL_SEGMENT = 200       # up to this size, strategy "all" tries the three pick strategies
LARGE_SEGMENT = 1500      # above this, two variants run
SEARCH_SEGMENT = 60       # local search polishes the chosen order of segments up to this size
SEARCH_EVALUATIONS = 200  # exact evaluations the local search may spend


@dataclass
class SegmentSchedule:
    """The chosen order of a segment and what the choice was made against."""

    best: OrderCost
    original: OrderCost
    strict: bool  # the chosen order fits the event limit
    tried: list[OrderCost] = field(default_factory=list)
    fit_found: bool = True  # some order that fits was found (maybe slower than ``best``)

    @property
    def changed(self) -> bool:
        return self.best.order != self.original.order


def variants_for(strategy: str, size: int, enforce: bool = True) -> list[Variant]:
    """The variants to run for a segment of ``size`` nodes.

    Events-first variants differ by pick strategy; speed-first ones rank by time first, so
    only one strategy is run for them. ``strategy="all"`` tries the three strategies on
    segments up to ``SMALL_SEGMENT`` nodes, the default one (min-max-sum) above; naming a
    strategy runs only it. Above ``LARGE_SEGMENT`` nodes only the two variants that win most
    often run (events first, paced and optimistic; speed first, eager and safe). Relaxed
    runs (``enforce=False``) admit every candidate, so safe and optimistic coincide there.
    """
    if strategy != "all":
        strategies = (strategy,)
    else:
        strategies = STRATEGIES if size <= SMALL_SEGMENT else ("min-max-sum",)
    admissions = (False, True) if enforce else (False,)
    found = [Variant(s, False, paced, optimistic) for s in strategies
             for paced in (False, True) for optimistic in admissions]
    found += [Variant(strategies[0], True, paced, optimistic)
              for paced in (False, True) for optimistic in admissions]
    if size > LARGE_SEGMENT:
        keep = {(False, True, True), (True, False, False)}
        found = [v for v in found if (v.speed_first, v.paced, v.optimistic) in keep]
    return found


def schedule_segment(segment: Segment, machine: Machine, strategy: str = "all",
                     objective: str = "fit", guard: bool = True,
                     stop_early: bool = True) -> SegmentSchedule:
    """Choose the order of ``segment``: strict variants first, relaxed ones if none fits.

    ``objective="fit"``: the fastest order that fits the event limit, as long as it is no
    slower than the original order (so the pass never costs cycles); otherwise the fastest
    order found. ``"cycles"``: the fastest order, fitting or not (a fitting one wins ties).
    Every order is judged by :func:`evaluate_order`: the flags insert-sync will plan, and
    the cycles they cost. ``guard=False`` drops the "no slower than the original" condition
    (benchmarks use it to measure the best fitting order the heuristic finds).
    ``stop_early``: when the original order fits, a run is stopped as soon as its order is
    sure to be slower (:class:`ReplayFloor`): it could not be chosen. Only the time changes.
    """
    original = evaluate_order(segment, list(range(len(segment))), machine)
    if len(segment) < 2 or not any(u is not None for u in segment.units):
        return SegmentSchedule(original, original, strict=True, tried=[original])
    # With a fitting original, a slower order can never be chosen: runs stop once they must be
    limit = original.makespan if stop_early and guard and original.fits else None
    tried = [original] + _run_variants(segment, machine, variants_for(strategy, len(segment)),
                                       enforce=True, give_up_above=limit)
    if objective == "fit":
        fitting = [c for c in tried if c.fits and (c.makespan <= original.makespan or not guard)]
        if fitting:
            best = min(fitting, key=lambda c: (c.makespan, _peak_total(c), c is not original))
            best = local_search(segment, machine, best, _fit_first)
            return SegmentSchedule(best, original, strict=True, tried=tried)
    tried += _run_variants(segment, machine, variants_for(strategy, len(segment), False),
                           enforce=False, give_up_above=limit)
    best = min(tried, key=lambda c: (c.makespan, c.fallbacks, c is not original))
    best = local_search(segment, machine, best, _fastest)
    return SegmentSchedule(best, original, strict=best.fits, tried=tried,
                           fit_found=any(c.fits for c in tried))


def adopt(result: SegmentSchedule, candidate: OrderCost, objective: str = "fit") -> bool:
    """Take ``candidate`` (CP-SAT's order, say) instead of the chosen order if the objective
    prefers it: it fits and is faster, or nothing chosen fits and ``candidate`` fits without
    being slower than the original order (``fit``) or is faster (``cycles``)."""
    best = result.best
    if not candidate.fits:
        return False
    if best.fits or objective == "cycles":
        better = candidate.makespan < best.makespan
    else:
        better = candidate.makespan <= result.original.makespan
    if better:
        result.best, result.strict, result.fit_found = candidate, True, True
    return better


def _run_variants(segment: Segment, machine: Machine, variants: list[Variant],
                  enforce: bool, give_up_above: int | None = None) -> list[OrderCost]:
    """The orders the variants build and their costs (runs that fail or, with
    ``give_up_above``, cannot finish within that many cycles are left out)."""
    found, seen = [], set()
    for variant in variants:
        scheduler = EventListScheduler(segment, machine, variant, enforce, give_up_above)
        order = scheduler.run()
        if order is None or tuple(order) in seen:
            continue
        seen.add(tuple(order))
        if segment.carried is None and not any(scheduler.tracker.overflow.values()):
            found.append(evaluate_tracked(segment, order, scheduler.tracker, machine,
                                          variant.name))
        else:
            found.append(evaluate_order(segment, order, machine, variant.name))
    return found


def _peak_total(cost: OrderCost) -> int:
    return sum(cost.peak_events.values())


def _fit_first(cost: OrderCost) -> tuple:
    return (cost.fallbacks, cost.makespan)


def _fastest(cost: OrderCost) -> tuple:
    return (cost.makespan, cost.fallbacks)


def local_search(segment: Segment, machine: Machine, start: OrderCost, rank,
                 evaluations: int = SEARCH_EVALUATIONS) -> OrderCost:
    """Polish an order by moving single nodes within their dependence window.

    First-improvement hill climbing: each unit node in turn is tried at every other
    position between its last predecessor and its first successor, and a move is kept when
    ``rank`` (lower is better) of the exact evaluation improves. At most ``evaluations``
    orders are evaluated; segments above ``SEARCH_SEGMENT`` nodes are returned unchanged.
    """
    if len(segment) > SEARCH_SEGMENT:
        return start
    best, spent, improved = start, 0, True
    while improved and spent < evaluations:
        improved = False
        for node in range(len(segment)):
            if segment.units[node] is None:
                continue
            for order in _moves(segment, best.order, node):
                spent += 1
                cost = evaluate_order(segment, order, machine, best.variant + "+search")
                if rank(cost) < rank(best):
                    best, improved = cost, True
                    break
                if spent >= evaluations:
                    return best
    return best


def _moves(segment: Segment, order: list[int], node: int):
    """Orders with ``node`` moved to another position that keeps its edges forward."""
    position = order.index(node)
    where = {n: k for k, n in enumerate(order)}
    low = max((where[p] for p in segment.preds[node]), default=-1) + 1
    high = min((where[s] for s in segment.succs[node]), default=len(order)) - 1
    rest = order[:position] + order[position + 1:]
    for target in range(low, high + 1):
        if target != position:
            yield rest[:target] + [node] + rest[target:]


class ReorderReport:
    """What ``reorder-events`` predicts and decided over all segments, for ``env.remarks``.

    ``peak_events`` (program order, what insert-sync reports), ``ids_used`` (the ids
    insert-sync will assign: a bound on the simulator's live events for any timing) and
    ``live_events`` (the replay's timed peak, the simulator's measure) are maxima per pair;
    ``cycles`` is the estimate for the whole function; ``fallbacks`` count insert-sync's
    drains (ids ran out) on the original and the chosen orders.
    """

    def __init__(self) -> None:
        self.peak_events: dict[str, int] = {}
        self.ids_used: dict[str, int] = {}
        self.live_events: dict[str, int] = {}
        self.cycles = 0
        self.fallbacks = {"before": 0, "after": 0}
        self.segments = {"total": 0, "changed": 0, "relaxed": 0, "exact": 0}
        self.exact_gaps: list[float] = []

    def add(self, result: SegmentSchedule, exact: bool) -> None:
        """Account one scheduled segment."""
        best = result.best
        for key, value in best.peak_events.items():
            self.peak_events[key] = max(self.peak_events.get(key, 0), value)
        for mine, theirs in ((self.ids_used, best.ids_used), (self.live_events, best.live_events)):
            for key, value in theirs.items():
                mine[key] = max(mine.get(key, 0), value)
        self.fallbacks["before"] += result.original.fallbacks
        self.fallbacks["after"] += best.fallbacks
        self.segments["total"] += 1
        self.segments["changed"] += result.changed
        self.segments["relaxed"] += not result.strict
        self.segments["exact"] += exact

    def as_dict(self) -> dict:
        """Plain data for ``env.remarks["reorder_events"]``."""
        return {"peak_events": dict(self.peak_events), "ids_used": dict(self.ids_used),
                "live_events": {k: v for k, v in self.live_events.items() if v},
                "cycles": self.cycles,
                "fallbacks": dict(self.fallbacks), "segments": dict(self.segments),
                "exact_gaps": list(self.exact_gaps)}
