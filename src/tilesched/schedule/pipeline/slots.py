"""How many versions (slots) each buffer of a software pipeline needs (no IR).

A buffer written and read by the ops of one iteration gets ``N`` slots used
round-robin (slot ``j mod N`` for iteration ``j``). ``N`` must let iteration
``j + N`` overwrite the slot only after every access of iteration ``j`` is
*complete*, not merely issued: an access on an asynchronous queue completes when
a ``wait_group`` proves it, so an asynchronous reader keeps its slot busy until
the first wait that covers its group (a case TVM's async pipelines miss: their
``N = max stage + 1`` lets a producer on one queue overwrite a slot a consumer
on another queue may still be reading). Accesses on the same in-order queue, or
on the issuer, are complete in issue order.

:func:`choose_slots` computes the smallest such ``N`` per buffer by walking a
long enough instance of the pipeline with its waits
(:mod:`tilesched.schedule.pipeline.waits`), and returns the carried edges the
multi-buffered accesses still impose (distance ``N``). With a known trip count ``T`` a buffer
never needs more than ``T`` slots (:func:`cap_slots`): iteration ``j < T`` uses slot
``j mod N = j`` either way, so the extra slots would never be touched (TVM allocates them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.pipeline.stages import (
    WAR,
    WAW,
    Edge,
    StagedOp,
    issue_slot_count,
    stage_count,
    steps,
)
from tilesched.schedule.pipeline.waits import Walk, build_template, concrete, instantiate, solve


def completes_before(x: StagedOp, jx: int, y: StagedOp, jy: int, walk: Walk) -> bool:
    """Is ``x`` of iteration ``jx`` complete before ``y`` of iteration ``jy`` starts?"""
    px, py = walk.issue_at[(x.id, jx)], walk.issue_at[(y.id, jy)]
    if not x.queues:
        return px < py
    same_queue = x.queues == y.queues and len(x.queues) == 1 and not (x.inline or y.inline)
    if same_queue:
        return px < py
    return walk.done_at.get((x.id, jx), float("inf")) < py


def slot_count(accesses: list[tuple[StagedOp, bool]], walk: Walk, probe: int,
               limit: int) -> int | None:
    """Smallest ``N <= limit`` such that each access of iteration ``probe`` completes before
    each write of iteration ``probe + N``; None when no wait in ``walk`` ever proves it."""
    for n in range(1, limit + 1):
        if all(completes_before(x, probe, y, probe + n, walk)
               for x, _ in accesses for y, y_writes in accesses if y_writes):
            return n
    return None


@dataclass
class SlotChoice:
    """Slots per buffer, the edges they impose, and buffers that need an extra wait."""

    slots: dict[str, int] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    waited: set[str] = field(default_factory=set)


def choose_slots(ops: dict[int, StagedOp], edges: list[Edge],
                 buffers: dict[str, list[tuple[int, bool]]]) -> SlotChoice:
    """Slots for each buffer of ``buffers`` (name -> (op id, writes) accesses of one
    iteration), given the pipeline's other ``edges``."""
    stages = stage_count(ops.values())
    max_distance = max((e.distance for e in edges), default=0)
    probe = stages + max_distance + 2
    limit = 2 * stages + max_distance + 2
    trips = probe + limit + stages + 1
    template = build_template(ops, edges)
    walk = solve(template, ops, edges,
                 instantiate(template, ops, steps(trips, stages), concrete(trips)))
    choice = SlotChoice()
    for name, accesses in buffers.items():
        pairs = [(ops[i], writes) for i, writes in accesses]
        n = slot_count(pairs, walk, probe, limit)
        if n is None:
            n = issue_slot_count(pairs) + 1
            choice.waited.add(name)
        choice.slots[name] = n
        for x, x_writes in pairs:
            for y, y_writes in pairs:
                if y_writes:
                    choice.edges.append(Edge(x.id, y.id, n, WAW if x_writes else WAR))
    return choice


def cap_slots(choice: SlotChoice, trips: int | None) -> SlotChoice:
    """``choice`` with every slot count at most ``trips`` (a known trip count; at least 1).

    Only the allocation shrinks: the carried edges keep their distance, which is at least
    ``trips`` wherever a count was capped, so they constrain no pair of executed iterations.
    """
    if trips is None:
        return choice
    capped = {name: max(1, min(n, trips)) for name, n in choice.slots.items()}
    return SlotChoice(capped, choice.edges, choice.waited)
