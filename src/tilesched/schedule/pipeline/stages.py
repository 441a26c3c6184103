"""Stage and iteration arithmetic of a software pipeline (no IR).

A pipelined loop body is a list of :class:`StagedOp`: each op has a *stage* ``s``
and an *order* ``k``. Iteration ``j`` of the op runs in *step* ``j + s`` of the
flattened pipeline, and inside a step ops run by increasing order (ties: body
position). So op ``a`` of iteration ``j`` runs before op ``b`` of iteration
``j + d`` exactly when ``(s_a, k_a, id_a) < (d + s_b, k_b, id_b)``
(:func:`runs_before`). A loop of ``T`` iterations has ``T + S - 1`` steps
(``S`` = number of stages): the *prologue* is steps ``0 .. S-2``, the *kernel*
steps ``S-1 .. T-1`` (all ops present: the steady state) and the *epilogue*
steps ``T .. T+S-2``.

Multi-buffering (modulo variable expansion, Rau et al., "Code generation schema
for modulo scheduled loops", MICRO 1992) gives a buffer ``N`` versions used
round-robin, ``j mod N``: :func:`issue_slot_count` is the smallest ``N`` such that
every access of iteration ``j`` is issued before the first conflicting access of
iteration ``j + N``. A reader ordered before the next writer in the kernel needs
no extra version. Completion of asynchronous accesses is handled in
:mod:`tilesched.schedule.pipeline.waits`.

The same conventions are used by TVM's software-pipeline transform
(``software_pipeline_stage`` / ``software_pipeline_order``) and MLIR's
``scf`` loop pipelining (``mlir/lib/Dialect/SCF/Transforms/LoopPipelining.cpp``).

Why not the modulo graph or the reorder segment: once stages are assigned, every question the
pass asks is the relative order of two op instances, which stage and order alone decide; there
are no latencies, resources or units to carry, so a list of :class:`StagedOp` is the graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

RAW, WAR, WAW, UNKNOWN = "RAW", "WAR", "WAW", "UNKNOWN"


@dataclass(frozen=True)
class StagedOp:
    """One movable op of the loop body.

    ``id`` is its body position; ``queues`` the asynchronous group queues it
    issues work to (empty: it completes before the issuer goes on); ``inline``
    is true when some of its work runs on (or must be ordered by) the issuer.
    """

    id: int
    stage: int
    order: int
    queues: frozenset[int] = field(default_factory=frozenset)
    inline: bool = True

    @property
    def key(self) -> tuple[int, int]:
        """Position inside a step: order, then body position."""
        return (self.order, self.id)


@dataclass(frozen=True)
class Edge:
    """``dst`` of iteration ``j + distance`` must follow ``src`` of iteration ``j``."""

    src: int
    dst: int
    distance: int = 0
    kind: str = RAW


def stage_count(ops: Iterable[StagedOp]) -> int:
    """Number of stages ``S`` (largest stage + 1; 1 for an empty body)."""
    return max((op.stage for op in ops), default=0) + 1


def kernel_order(ops: Iterable[StagedOp]) -> list[StagedOp]:
    """Ops in the order they run inside one step (the kernel body order)."""
    return sorted(ops, key=lambda op: op.key)


def runs_before(a: StagedOp, b: StagedOp, distance: int) -> bool:
    """Does ``a`` of iteration ``j`` run before ``b`` of iteration ``j + distance``?"""
    return (a.stage, a.order, a.id) < (distance + b.stage, b.order, b.id)


def trip_count(lb: int, ub: int, step: int) -> int:
    """Iterations of ``for i = lb to ub step step`` (``step > 0``)."""
    return max(0, -((lb - ub) // step))


def kernel_trips(trips: int, stages: int) -> int:
    """Iterations of the steady-state loop: ``T - (S - 1)``, at least 0."""
    return max(0, trips - stages + 1)


def steps(trips: int, stages: int) -> range:
    """All steps of a loop of ``trips`` iterations (empty when it has none)."""
    return range(trips + stages - 1) if trips > 0 else range(0)


def issue_slot_count(accesses: Sequence[tuple[StagedOp, bool]]) -> int:
    """Versions a buffer needs when its accesses complete in issue order.

    ``accesses`` are ``(op, writes)`` pairs of one iteration. The result is the
    smallest ``N >= 1`` such that every access of iteration ``j`` runs before
    every access of iteration ``j + N`` that conflicts with it (at least one of
    the two writes). O(n^2) in the number of accesses.
    """
    needed = 1
    for x, x_writes in accesses:
        for y, y_writes in accesses:
            if x_writes or y_writes:
                extra = 0 if x.key < y.key else 1
                needed = max(needed, x.stage - y.stage + extra)
    return needed


@dataclass(frozen=True)
class Violation:
    """An edge the schedule breaks: ``why`` is ``stage``, ``order`` or ``carried``."""

    edge: Edge
    why: str


def schedule_violations(ops: dict[int, StagedOp], edges: Iterable[Edge]) -> list[Violation]:
    """Edges whose source would not run before their destination after pipelining."""
    found = []
    for edge in edges:
        a, b = ops[edge.src], ops[edge.dst]
        if runs_before(a, b, edge.distance):
            continue
        if edge.distance:
            why = "carried"
        else:
            why = "stage" if b.stage < a.stage else "order"
        found.append(Violation(edge, why))
    return found
