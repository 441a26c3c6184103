"""insert-sync for barrier targets (AMD): ``sync.barrier {local}`` before conflicting LDS accesses.

Ops on the LDS unit complete asynchronously until the issuer group's next
``local`` barrier (their LDS *and* register accesses), and both issuer groups
run the program. So an access that conflicts (same buffer, overlapping regions,
at least one write) with an access of an LDS op made since the last local
barrier needs a local barrier first. This
is the shared-memory barrier analysis of Triton's Membar pass: a forward walk
keeping the set of LDS accesses since the last barrier; a conditional's set is
the union of its branches'; a loop body's entry set is the union of the set
before the loop and the set at the end of the body, iterated to a fixed point.
Barriers are placed only where a conflict exists, so there are as few as the
walk allows. A warp-pipelined span (``analysis/warp_regions.py``) is left as it
is: nothing goes inside, and its accesses stay pending after it.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block

from tilesched.analysis.dependence import kind_of
from tilesched.analysis.effects import Access, effects_of
from tilesched.analysis.units import unit_kind
from tilesched.analysis.warp_regions import span_accesses, warp_span_end
from tilesched.ir.blocks import body_ops, insert_before
from tilesched.ir.sync import make_local_barrier
from tilesched.target.model import Target

Pending = tuple[Access, ...]


def sync_barriers(block: Block, target: Target) -> None:
    """Insert local barriers in ``block`` (a function body)."""
    _walk(block, (), target, apply=True)


def _walk(block: Block, pending: Pending, target: Target, apply: bool) -> Pending:
    ops, skip = body_ops(block), 0
    for index, op in enumerate(ops):
        if index < skip:
            continue
        end = warp_span_end(ops, index)
        if end is not None:
            pending, skip = _warp_span(ops[index:end + 1], pending, target, apply), end + 1
        elif isinstance(op, scf.ForOp):
            pending = _walk_loop(op, pending, target, apply)
        elif op.regions:
            exits = [_walk(inner, pending, target, apply)
                     for region in op.regions for inner in region.blocks]
            if len(exits) == 1:  # an scf.if without else may skip its body
                exits.append(pending)
            pending = tuple(a for exit_set in exits for a in exit_set)
        elif op.name == "sync.barrier" and "local" in op.properties:
            pending = ()
        else:
            accesses = tuple(effects_of(op).accesses)
            if accesses and _conflicts(accesses, pending):
                if apply:
                    insert_before(op, [make_local_barrier()])
                pending = ()
            if unit_kind(op, target)[1] == "lds":
                pending = pending + accesses  # completes only at the next local barrier
    return pending


def _warp_span(span: list, pending: Pending, target: Target, apply: bool) -> Pending:
    """A warp-pipelined span: a local barrier before it if it conflicts with pending accesses."""
    accesses = span_accesses(span, target)
    if _conflicts(accesses, pending):
        if apply:
            insert_before(span[0], [make_local_barrier()])
        pending = ()
    return pending + accesses


def _walk_loop(loop: scf.ForOp, pending: Pending, target: Target, apply: bool) -> Pending:
    """Fixed point of the loop body's entry set, then one walk that inserts barriers."""
    entry = pending
    for _ in range(4):
        exit_set = _walk(loop.body.block, entry, target, apply=False)
        merged = _union(entry, exit_set)
        if len(merged) == len(entry):
            break
        entry = merged
    exit_set = _walk(loop.body.block, entry, target, apply)
    return _union(pending, exit_set)  # zero trips leave the set before the loop


def _union(a: Pending, b: Pending) -> Pending:
    seen = {id(x) for x in a}
    return a + tuple(x for x in b if id(x) not in seen)


def _conflicts(accesses: Pending, pending: Pending) -> bool:
    return any(kind_of(earlier, access) for access in accesses for earlier in pending)
