"""The simulator's instruction set: what every stage that writes or reads instructions agrees on.

The engine is the simulator's hot loop, so it never looks at dataclasses: an issuer's program is
a list of small tuples whose first field is an opcode (``code/program.py`` and ``code/stream.py``
write them; ``engine/`` and ``native/`` read them). This module is the one place their layout is
written down; it imports nothing, so every stage (and every compiled module, through
``isa.pxd``, whose constants a no-build test holds equal to these) can read it.

Issuer instructions (first field, the opcode):

- ``(ENQ, agent, item)``: enqueue ``item`` on a non-inline unit agent; ``(INLINE, unit, item)``:
  run ``item`` on an inline unit (a resource the issuers share);
- ``(ISET, ...)``, ``(IWAIT, ...)``, ``(BALL, ref)``, ``(COMMIT, ...)``, ``(WAITG, ...)``,
  ``(BAR, ...)``, ``(PRIO, ...)``, ``(NOP, ref)``: synchronization, each keeping its op reference
  where :func:`reference_at` says;
- ``(MARK, kind, loop, n, frame)``: a loop boundary of kind ``ENTER``, ``ITER`` or ``EXIT`` (it
  costs nothing; steady-state detection and the replay read it).

Unit items (first field of an enqueued or inline item): ``(TILE, duration, ref, accesses)``,
``(SET, ...)``, ``(WAIT, ...)``, ``(PIPE_BARRIER, ...)``; an item's op reference is its field 2.

Access tuples (the memref operands of a tile item, field 3): ``(buffer, region, is_write,
history_key)``, ``region`` a tuple of half-open ``(lo, hi)`` ranges, one per dimension. A buffer
id at or above the program's first private id is a per-group copy (``code.program
.virtual_buffer``).

Op references. A streamed program's instruction names its op by ``(position * issuers + issuer)
* MAX_STATIC + sid`` (``code/stream.py``); a trace's program by the op's index.
"""

from __future__ import annotations

# Issuer opcodes (MARK: a loop boundary; it costs nothing).
ENQ, INLINE, ISET, IWAIT, BALL, COMMIT, WAITG, BAR, PRIO, NOP, MARK = range(11)
# Unit item opcodes (first field of an item enqueued with ENQ; INLINE carries a TILE item too).
TILE, SET, WAIT, PIPE_BARRIER = range(4)
# Loop boundary kinds (the ``kind`` of a ``(MARK, kind, loop, n, frame)`` instruction).
ENTER, ITER, EXIT = range(3)

# Limits shared by the stages (and by the compiled twins, which read them from here).
MAX_STATIC = 1 << 20  # static ops per program (op references pack the sid below this)
VIRTUAL_STRIDE = 1 << 40  # per-group copies of private buffers: buffer + stride * (group + 1)
MAX_PERIOD = 64  # longest period (in iterations) a loop's analysis proves or a replay repeats
MIN_REMAINING = 4  # iterations left in a loop segment below which steady-state cutting stops
INDEX_AT = 32  # live regions of one buffer above which the bound indexes them by cells
MAX_CELLS = 64  # a region covering more cells than this is kept in the always-scanned list


def reference_at(code: int) -> int:
    """Where an issuer instruction of opcode ``code`` other than ``ENQ``/``INLINE`` keeps its op
    reference (those two keep it in their item, ``ins[2][2]``)."""
    return 3 if code == WAITG else 1 if code in (NOP, BALL) else 2


def lds_consumed(outstanding: list, accesses) -> int:
    """The newest count among ``outstanding`` (``(count, private accesses)`` of a group's LDS
    ops not yet awaited, oldest first) whose accesses conflict with ``accesses`` (same buffer,
    overlapping regions, at least one write); 0 for none. Shared by both engines."""
    for count, theirs in reversed(outstanding):
        for buf, region, write, _ in accesses:
            for buf2, region2, write2, _ in theirs:
                if buf == buf2 and (write or write2) and all(
                        alo < bhi and blo < ahi
                        for (alo, ahi), (blo, bhi) in zip(region, region2, strict=True)):
                    return count
    return 0


def private_accesses(item: tuple, first_private: int) -> tuple:
    """The accesses of an enqueued tile item to private (per-group) buffers: virtual ids from
    ``first_private`` on (``code.program.virtual_buffer``). Shared by both engines."""
    if item[0] != TILE or not item[3]:
        return ()
    return tuple(a for a in item[3] if a[0] >= first_private)
