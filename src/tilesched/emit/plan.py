"""The on-chip address plan of an emitted kernel: a byte offset per buffer (no IR here).

Each on-chip buffer (a ``memref.alloc`` in UB / L1 / L0A / L0B / L0C, or a scratch tile an
intrinsic needs) is a :class:`Request`: its space, its size in bytes, the program interval
``[start, end]`` (op positions, inclusive) during which it holds data, and ``unit``: the one
in-order unit that performs every access to it, or None. :func:`plan` places the requests of
each space first-fit by decreasing size at offsets that are multiples of the alignment, so that
two requests that :func:`conflict` never overlap in bytes.

Two buffers may share bytes only when their intervals are disjoint **and** one in-order unit
(queued, not pipelined) performs all accesses to both: that unit then executes them in program
order, so the reuse adds no hazard. Buffers touched by several units (a tile loaded on MTE2 and
computed on V) never share: the units run concurrently, program order does not order them, and
the synchronization insert-sync placed knows nothing of an address the IR does not show. A space
whose plan ends beyond its capacity is reported by :class:`DoesNotFit` with the bytes it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

# PTO-ISA's on-chip alignment: PTO_UBUF_ALIGN_BYTES, PTO_CBUF_ALIGN_BYTES, PTO_L0A/L0B/L0C_ALIGN_BYTES
# are all 32 bytes (pto-isa include/pto/common/buffer_limits.hpp, the pinned copy).
ALIGNMENT = 32


@dataclass(frozen=True)
class Request:
    """A buffer to place: ``name`` for messages, ``space``, ``size`` bytes, live ``[start, end]``,
    the one in-order ``unit`` that accesses it (None: several units, or one that overlaps its
    own ops)."""

    name: str
    space: str
    size: int
    start: int
    end: int
    unit: str | None = None


@dataclass(frozen=True)
class DoesNotFit(Exception):
    """The requests of ``space`` need ``needed`` bytes (aligned plan) but it has ``capacity``;
    ``culprit`` is the index of the request that ends highest in that plan."""

    space: str
    needed: int
    capacity: int
    culprit: int


def align(value: int, alignment: int = ALIGNMENT) -> int:
    return (value + alignment - 1) // alignment * alignment


def plan(requests: list[Request], capacities: dict[str, int | None],
         alignment: int = ALIGNMENT) -> list[int]:
    """A byte offset per request (same order); raises :class:`DoesNotFit` for the first space
    (in name order) whose plan exceeds its capacity."""
    offsets = [0] * len(requests)
    by_space: dict[str, list[int]] = {}
    for k, request in enumerate(requests):
        by_space.setdefault(request.space, []).append(k)
    for space in sorted(by_space):
        placed: list[int] = []
        order = sorted(by_space[space], key=lambda k: (-requests[k].size, requests[k].start, k))
        for k in order:
            offsets[k] = _first_fit(requests, offsets, placed, k, alignment)
            placed.append(k)
        high = max((offsets[k] + requests[k].size, k) for k in placed)
        capacity = capacities.get(space)
        if capacity is not None and high[0] > capacity:
            raise DoesNotFit(space, high[0], capacity, high[1])
    return offsets


def _first_fit(requests: list[Request], offsets: list[int], placed: list[int], k: int,
               alignment: int) -> int:
    """The lowest aligned offset where request ``k`` overlaps no placed request live with it."""
    me = requests[k]
    busy = sorted((offsets[j], offsets[j] + requests[j].size) for j in placed
                  if conflict(requests[j], me))
    offset = 0
    for lo, hi in busy:
        if offset + me.size <= lo:
            break
        offset = max(offset, align(hi, alignment))
    return offset


def live_together(a: Request, b: Request) -> bool:
    """Whether the live intervals of two requests intersect."""
    return a.start <= b.end and b.start <= a.end


def conflict(a: Request, b: Request) -> bool:
    """Whether two requests must not share bytes (see the module docstring)."""
    return live_together(a, b) or a.unit is None or a.unit != b.unit


def overlapping_live_pairs(requests: list[Request], offsets: list[int]) -> list[tuple[int, int]]:
    """Pairs of requests of one space that conflict and share bytes (empty for a correct plan)."""
    bad = []
    for i, a in enumerate(requests):
        for j in range(i + 1, len(requests)):
            b = requests[j]
            if a.space == b.space and conflict(a, b) and a.size and b.size \
                    and offsets[i] < offsets[j] + b.size and offsets[j] < offsets[i] + a.size:
                bad.append((i, j))
    return bad
