"""What an order of a segment costs: the flags insert-sync will plan, and their cycles.

:func:`evaluate_order` mirrors ``insert_sync.flags.FlagSync`` on a :class:`Segment`: a loop body
without boundaries is planned with :func:`plan_loop_flags` (back-edge flags for loop-carried
dependences), anything else is cut at boundary control nodes and each piece planned with
:func:`plan_flags`, fresh. The synchronized order is then timed by
:func:`tilesched.schedule.reorder.list_schedule.replay`, which follows the simulator's rules (exact
for straight-line code; loop bodies are replayed ``segment.trips`` times, a boundary control
node is a fence of its estimated duration). ``reorder-events`` compares candidate orders by
this, and reports its figures as predictions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.flags import (
    BARRIER_ALL,
    PIPE_BARRIER,
    SET,
    WAIT,
    FlagTracker,
    SyncOp,
    count_fallbacks,
    ids_used,
    plan_flags,
    plan_loop_flags,
)
from tilesched.schedule.reorder.list_schedule import (
    BARRIER,
    FENCE,
    OP,
    PIPE,
    SET_FLAG,
    WAIT_FLAG,
    replay,
)
from tilesched.schedule.reorder.segment import Segment


@dataclass(frozen=True)
class Machine:
    """What the event model and the timing need to know about the target."""

    limit: int
    pipelined: frozenset[str] = frozenset()
    issue_cycles: int = 1
    inline_units: frozenset[str] = frozenset()

    @classmethod
    def of(cls, target) -> Machine:
        """The machine of a :class:`tilesched.target.model.Target`."""
        return cls(limit=target.event_limit or 8,
                   pipelined=frozenset(u.name for u in target.units.values() if u.pipelined),
                   issue_cycles=target.issue_cycles,
                   inline_units=frozenset(u.name for u in target.units.values()
                                          if u.kind == "inline"))


@dataclass
class OrderCost:
    """An order, the flags insert-sync would give it, and the cycles they cost."""

    order: list[int]
    fallbacks: int
    peak_events: dict[str, int]
    ids_used: dict[str, int]
    makespan: int
    variant: str = "original"
    live_events: dict[str, int] = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        return self.fallbacks == 0


def evaluate_order(segment: Segment, order: list[int], machine: Machine,
                   variant: str = "original") -> OrderCost:
    """Plan the flags of ``order`` exactly as insert-sync does, and time the result.

    Mirrors ``insert_sync.flags.FlagSync``: a loop body without boundaries is planned with
    :func:`plan_loop_flags` (back-edge flags for loop-carried dependences); otherwise the
    order is cut at boundary control nodes and each piece planned with :func:`plan_flags`.
    """
    position = {node: k for k, node in enumerate(order)}
    has_boundary = any(segment.boundary)
    if segment.carried is not None and not has_boundary:
        return _evaluate_loop(segment, order, position, machine, variant)
    entries: list[tuple] = []
    fallbacks, peaks, used = 0, {}, {}
    for piece in _pieces(segment, order):
        if isinstance(piece, int):
            entries.append((FENCE, segment.durations[piece]))
            continue
        plan = _plan_piece(segment, piece, machine)
        fallbacks += count_fallbacks(plan.ops)
        _merge_max(peaks, plan.peak_events)
        _merge_max(used, ids_used(plan.ops))
        entries.extend(_entries(segment, piece, plan.ops))
    if segment.carried is not None:  # a loop body with boundaries: barrier_all ends each iteration
        entries.append((BARRIER,))
    timed = replay(entries * max(1, segment.trips), machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), fallbacks, peaks, used, timed.makespan, variant,
                     timed.live_events)


def evaluate_tracked(segment: Segment, order: list[int], tracker: FlagTracker,
                     machine: Machine, variant: str) -> OrderCost:
    """:func:`evaluate_order` for an order built with ``tracker`` without running out of
    ids: the tracker already holds exactly the flags :func:`plan_flags` would plan
    (positions in the order; boundaries restart the planner as insert-sync does), so only
    the timing is left to compute. Not for loop bodies (back edges are planned separately)."""
    entries: list[tuple] = []
    syncs = tracker.plan_ops()  # by position, then order
    k = 0
    for index, node in enumerate(order):
        while k < len(syncs) and syncs[k].position <= index:
            entries.append(_sync_entry(syncs[k]))
            k += 1
        if segment.boundary[node]:
            entries.append((FENCE, segment.durations[node]))
        elif segment.units[node] is not None:
            entries.append((OP, segment.units[node], segment.durations[node]))
    entries.extend(_sync_entry(sync) for sync in syncs[k:])
    timed = replay(entries * max(1, segment.trips), machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), 0, tracker.peak_events(), ids_used(tracker.ops),
                     timed.makespan, variant, timed.live_events)


def _evaluate_loop(segment, order, position, machine, variant) -> OrderCost:
    items = [segment.items[node] for node in order]
    deps = sorted((position[i], position[j]) for i, j in segment.deps)
    carried = [(position[i], position[j], d) for i, j, d in segment.carried]
    plan = plan_loop_flags(items, deps, carried, machine.limit, machine.pipelined)
    fallbacks = count_fallbacks(plan.body) + int(plan.serialized)
    body = _entries(segment, order, plan.body)
    entries = ([_sync_entry(s) for s in plan.presets] + body * max(1, segment.trips)
               + [_sync_entry(s) for s in plan.drains])
    timed = replay(entries, machine.issue_cycles, machine.inline_units)
    return OrderCost(list(order), fallbacks, dict(plan.peak_events),
                     ids_used(plan.body + plan.presets), timed.makespan, variant,
                     timed.live_events)


def _pieces(segment: Segment, order: list[int]) -> list:
    """The order cut at boundary nodes: lists of nodes, and the boundary nodes themselves."""
    pieces, current = [], []
    for node in order:
        if segment.boundary[node]:
            pieces.extend([current, node])
            current = []
        else:
            current.append(node)
    pieces.append(current)
    return [p for p in pieces if p != []]


def _plan_piece(segment: Segment, piece: list[int], machine: Machine):
    local = {node: k for k, node in enumerate(piece)}
    deps = sorted((local[i], local[j]) for j in piece for i in segment.dep_preds[j] if i in local)
    items = [segment.items[node] for node in piece]
    return plan_flags(items, deps, machine.limit, machine.pipelined)


def _entries(segment: Segment, nodes: list[int], syncs: list[SyncOp]) -> list[tuple]:
    """Timing entries for ``nodes`` in order with ``syncs`` inserted at their positions."""
    syncs = sorted(syncs, key=lambda s: (s.position, s.order))
    entries, k = [], 0
    for index, node in enumerate(nodes):
        while k < len(syncs) and syncs[k].position <= index:
            entries.append(_sync_entry(syncs[k]))
            k += 1
        if segment.units[node] is not None:
            entries.append((OP, segment.units[node], segment.durations[node]))
    entries.extend(_sync_entry(sync) for sync in syncs[k:])
    return entries


def _sync_entry(sync: SyncOp) -> tuple:
    if sync.kind == SET:
        return (SET_FLAG, sync.src, sync.dst, sync.event)
    if sync.kind == WAIT:
        return (WAIT_FLAG, sync.src, sync.dst, sync.event)
    if sync.kind == PIPE_BARRIER:
        return (PIPE, sync.src)
    assert sync.kind == BARRIER_ALL
    return (BARRIER,)


def _merge_max(into: dict[str, int], other: dict[str, int]) -> None:
    for key, value in other.items():
        into[key] = max(into.get(key, 0), value)
