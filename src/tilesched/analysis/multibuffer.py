"""Which buffers of a loop may get one version per iteration in flight (multi-buffering).

A buffer can be multi-buffered when giving each iteration its own copy changes no value the
program computes: it is a ``memref.alloc`` of the function, used only inside the loop, written
by the loop, and every read of it in an iteration is covered by an earlier write of the same
iteration that always happens (an op directly in the body, not inside a conditional or a
nested loop). Then no value flows from one iteration to the next through it.

One definition for both passes that rely on it: ``software-pipeline`` gives such buffers slots
(and drops their loop-carried edges), and ``modulo-schedule`` relaxes their loop-carried WAR /
WAW distances by the slots it may count on. Every other buffer keeps each loop-carried
dependence at its own distance: an in-place op that reads and writes a buffer carrying a value
across iterations must stay ordered after the previous iteration's readers.
"""

from __future__ import annotations

from collections import defaultdict

from xdsl.dialects import memref, scf
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.effects import Access, Effects
from tilesched.analysis.regions import Interval, Region
from tilesched.ir.affine import Affine
from tilesched.ir.tile import SlotOp, ViewOp


def accesses_by_root(effects: list[Effects]) -> dict[SSAValue, list[tuple[int, Access]]]:
    """``root -> [(op index, access)]`` over the effects of a list of ops, in op order."""
    found: dict[SSAValue, list[tuple[int, Access]]] = defaultdict(list)
    for i, eff in enumerate(effects):
        for access in eff.accesses:
            found[access.region.root].append((i, access))
    return found


def single_buffer_reason(root: SSAValue, found: list[tuple[int, Access]],
                         loop: scf.ForOp) -> str | None:
    """Why ``root`` cannot get more versions (a sentence), or None when it can.

    ``found`` lists the loop body's accesses to ``root`` as ``(op index, access)`` in body order.
    """
    if not isinstance(root.owner, memref.AllocOp):
        return "it is not a memref.alloc of this function"
    if not all(loop.is_ancestor(use) for use in _uses(root)):
        return "it is also used outside the loop"
    if not any(a.write for _, a in found):
        return "the loop never writes it"
    for i, access in found:
        if not access.write and not _covered(i, access.region, found, loop):
            return "an iteration reads a value an earlier iteration wrote"
    return None


def multibuffer_candidates(loop: scf.ForOp, effects: list[Effects]) -> set[SSAValue]:
    """The roots accessed by the body ops with ``effects`` that may be multi-buffered."""
    return {root for root, found in accesses_by_root(effects).items()
            if single_buffer_reason(root, found, loop) is None}


def _uses(value: SSAValue) -> list[Operation]:
    """Ops using ``value`` directly or through views and slots of it."""
    out = []
    for use in value.uses:
        op = use.operation
        if isinstance(op, ViewOp | SlotOp):
            out.extend(_uses(op.result))
        else:
            out.append(op)
    return out


def _covered(reader: int, region: Region, found: list[tuple[int, Access]],
             loop: scf.ForOp) -> bool:
    """Is the read covered by an earlier write of the same iteration that always happens
    (made by an op directly in the body, not inside a conditional or nested loop)?"""
    for i, access in found:
        if (i < reader and access.write and access.op.parent_op() is loop
                and _contains(access.region, region)):
            return True
    return False


def _contains(outer: Region, inner: Region) -> bool:
    return all(_interval_contains(x, y) for x, y in zip(outer.dims, inner.dims, strict=True))


def _interval_contains(x: Interval, y: Interval) -> bool:
    if isinstance(x.start, Affine) and isinstance(y.start, Affine):
        delta = y.start - x.start
        return delta.is_constant and 0 <= delta.const and delta.const + y.size <= x.size
    return x.start is not None and x.start == y.start and y.size <= x.size
