"""Where barrier targets (AMD) need ``sync.barrier {local}``: before accesses that conflict with LDS
accesses not yet made visible. Used by ``insert-sync`` and by ``warp-pipeline`` (for the code
around its pipelines); each inserts the barriers at the points found here.

Both issuer groups run the program. An LDS op's accesses to shared memory (LDS) are visible to
the other group only after a ``local`` barrier; its accesses to private memory (registers) complete
for its own group when the group next touches them (the hardware's per-wave ``s_waitcnt``,
DESIGN.md §4), so they need no barrier. So an access that conflicts (same buffer, overlapping
regions, at least one write) with a shared-memory access of an LDS op made since the last local
barrier needs a local barrier first. This
is the shared-memory barrier analysis of Triton's Membar pass: a forward walk
keeping the set of LDS accesses since the last barrier; a conditional's set is
the union of its branches'; a loop body's entry set is the union of the set
before the loop and the set at the end of the body, iterated to a fixed point.
An access carried around the back edge was made at an earlier iteration: it is
compared with the body's accesses at every distance the loop has
(``min_conflict_distance``; slots ``(i + 1) mod 2`` and ``i mod 2`` meet one
iteration apart), and conservatively when its region depends on values that
change inside the loop (inner induction variables, loop-carried values).
Barriers are placed only where a conflict exists, so there are as few as the
walk allows. An async global->LDS copy (AMD async queue) completes only at its group's
``wait_group``: its accesses stay pending across local barriers until a ``wait_group``
with pending 0 (others conservatively complete nothing here; the simulator judges the counts),
and a conflicting access then gets a local barrier after the wait insert-sync put before it. A warp-pipelined span (``analysis/warp_regions.py``) is left as it
is: nothing goes inside, and its accesses stay pending after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.ir import Block, Operation

from tilesched.analysis.dependence import distance_limit, kind_of, min_conflict_distance
from tilesched.analysis.effects import Access, effects_of
from tilesched.analysis.regions import Region
from tilesched.analysis.units import unit_kind
from tilesched.analysis.warp_regions import is_private, span_accesses, warp_span_end
from tilesched.ir.affine import Affine, Mod
from tilesched.ir.blocks import body_ops
from tilesched.target.model import Target


@dataclass(frozen=True, eq=False)
class Carried:
    """An access still pending when ``loop``'s body starts again (made at an earlier iteration)."""

    access: Access
    loop: scf.ForOp
    limit: int  # the largest iteration distance the loop has


@dataclass(frozen=True, eq=False)
class Landed:
    """An async global->LDS copy's access completed for its group by a ``wait_group`` (pending
    0): the next local barrier makes it visible to the other group."""

    access: Access | Carried


Pending = tuple[Access | Carried | Landed, ...]


def _in_flight(entry, target: Target) -> bool:
    """Is ``entry`` an async copy's access no wait has completed yet? No barrier clears it: its
    group's ``wait_group`` must come first (insert-sync places one before each consumer)."""
    if isinstance(entry, Landed):
        return False
    base = entry.access if isinstance(entry, Carried) else entry
    return unit_kind(base.op, target)[1] == "async"


def _after_barrier(pending: Pending, target: Target) -> Pending:
    """What a local barrier leaves pending: the async copies still in flight."""
    return tuple(a for a in pending if _in_flight(a, target))


def local_barrier_points(block: Block, target: Target) -> list[Operation]:
    """The ops of ``block`` (a function body, nested blocks included) before which a local
    barrier goes, in walk order."""
    points: list[Operation] = []
    _walk(block, (), target, points)
    return points


def _walk(block: Block, pending: Pending, target: Target, apply: list | None) -> Pending:
    """The pending set after ``block``; with ``apply`` (a list), the barrier points found are
    appended to it (each block is walked with it once; fixed-point walks pass None)."""
    return _walk_ops(body_ops(block), pending, target, apply)


def _walk_ops(ops: list[Operation], pending: Pending, target: Target, apply: list | None,
              lookahead: bool = True) -> Pending:
    """:func:`_walk` over ``ops``; ``lookahead=False`` never hoists a barrier out of a
    conditional (the walk that judges a hoist)."""
    skip = 0
    for index, op in enumerate(ops):
        if index < skip:
            continue
        end = warp_span_end(ops, index)
        if end is not None:
            pending, skip = _warp_span(ops[index:end + 1], pending, target, apply), end + 1
        elif isinstance(op, scf.ForOp):
            pending = _walk_loop(op, pending, target, apply)
        elif isinstance(op, scf.WhileOp):
            pending = _walk_while(op, pending, target, apply)
        elif op.regions:
            pending = _walk_conditional(op, ops[index + 1:], pending, target, apply, lookahead)
        elif op.name == "sync.barrier" and "local" in op.properties:
            pending = _after_barrier(pending, target)
        elif op.name == "sync.wait_group":
            if op.pending is not None and op.pending.value.data == 0:  # every group: landed
                pending = tuple(Landed(a) if _in_flight(a, target) else a for a in pending)
        else:
            accesses = tuple(effects_of(op).accesses)
            if accesses and _conflicts(accesses, pending):
                if apply is not None:
                    apply.append(op)
                pending = _after_barrier(pending, target)
            # visible to the other group at a local barrier (a callee may run LDS ops); an
            # async global->LDS copy (AMD async queue) only after its wait_group, which the
            # program writes before that barrier (the simulator checks it)
            if unit_kind(op, target)[1] in ("lds", "async") or isinstance(op, func.CallOp):
                pending = pending + tuple(a for a in accesses if not is_private(a.region))
    return pending


def _branches(op: Operation, pending: Pending, target: Target, apply: list | None) -> Pending:
    """The union of the exit sets of a conditional's branches (entered with ``pending``)."""
    exits = [_walk(inner, pending, target, apply)
             for region in op.regions for inner in region.blocks]
    if len(exits) == 1:  # an scf.if without else may skip its body
        exits.append(pending)
    return tuple(a for exit_set in exits for a in exit_set)


def _walk_conditional(op: Operation, rest: list[Operation], pending: Pending, target: Target,
                      apply: list | None, lookahead: bool) -> Pending:
    """A conditional. When a branch needs a barrier, one barrier before the conditional may do
    better: it also clears what the other branches (or the skipped body) would leave pending
    for the ops after it (an LDS double buffer whose refill sits in an ``scf.if``: the refill's
    barrier and the reads' barrier become one). It goes there when that gives fewer barriers in
    the conditional and the rest of the block (static count; the hoisted barrier also runs when
    no branch needed one, so a tie keeps the barriers inside)."""
    if lookahead:
        inside: list = []
        exit_set = _branches(op, pending, target, inside)
        cleared = _after_barrier(pending, target)
        if inside and len(cleared) < len(pending):
            inside_hoisted: list = []
            exit_hoisted = _branches(op, cleared, target, inside_hoisted)
            later, later_hoisted = [], []
            _walk_ops(rest, exit_set, target, later, lookahead=False)
            _walk_ops(rest, exit_hoisted, target, later_hoisted, lookahead=False)
            if 1 + len(inside_hoisted) + len(later_hoisted) < len(inside) + len(later):
                if apply is not None:
                    apply.append(op)
                return _branches(op, cleared, target, apply)
    return _branches(op, pending, target, apply)


def _warp_span(span: list, pending: Pending, target: Target, apply: list | None) -> Pending:
    """A warp-pipelined span: a local barrier before it if it conflicts with pending accesses."""
    accesses = span_accesses(span)
    if _conflicts(accesses, pending):
        if apply is not None:
            apply.append(span[0])
        pending = _after_barrier(pending, target)
    return pending + accesses


def _walk_loop(loop: scf.ForOp, pending: Pending, target: Target, apply: list | None) -> Pending:
    """Fixed point of the loop body's entry set, then one walk that finds the barriers."""
    entry, carry = pending, _carrier(loop)
    for _ in range(4):
        exit_set = _walk(loop.body.block, entry, target, None)
        merged = _union(entry, tuple(carry(a) for a in exit_set))
        if len(merged) == len(entry):
            break
        entry = merged
    exit_set = _walk(loop.body.block, entry, target, apply)
    return _union(pending, exit_set)  # zero trips leave the set before the loop


def _walk_while(loop: scf.WhileOp, pending: Pending, target: Target,
                apply: list | None) -> Pending:
    """An ``scf.while``: rounds of its before and after regions, to a fixed point of the entry
    set (accesses of earlier rounds compared as if in the same one: conservative); it exits
    after a before region."""
    before, after = loop.before_region.blocks[0], loop.after_region.blocks[0]
    entry = pending
    for _ in range(4):
        merged = _union(entry, _walk(after, _walk(before, entry, target, None), target, None))
        if len(merged) == len(entry):
            break
        entry = merged
    leaving = _walk(before, entry, target, apply)
    _walk(after, leaving, target, apply)
    return leaving


def _union(a: Pending, b: Pending) -> Pending:
    seen = {id(x) for x in a}
    return a + tuple(x for x in b if id(x) not in seen)


def _carrier(loop: scf.ForOp):
    """Maps an access pending at the end of ``loop``'s body to what the next iteration sees:
    the body's own accesses (and those carried by inner loops) become one ``Carried`` each."""
    limit, made = distance_limit(loop), {}

    def carry(access: Access | Carried | Landed) -> Access | Carried | Landed:
        if isinstance(access, Landed):  # back in flight for the next iteration (conservative)
            access = access.access
        base = access.access if isinstance(access, Carried) else access
        if (isinstance(access, Carried) and access.loop is loop) or not loop.is_ancestor(base.op):
            return access
        if id(base) not in made:
            made[id(base)] = Carried(base, loop, limit)
        return made[id(base)]

    return carry


def _conflicts(accesses: tuple[Access, ...], pending: Pending) -> bool:
    return any(_conflict(earlier, access) for access in accesses for earlier in pending)


def _conflict(earlier: Access | Carried | Landed, later: Access) -> bool:
    if isinstance(earlier, Landed):
        earlier = earlier.access
    if not isinstance(earlier, Carried):
        return kind_of(earlier, later) is not None
    first, loop = earlier.access, earlier.loop
    if not loop.is_ancestor(later.op):  # after the loop: the iteration no longer matters
        return kind_of(first, later) is not None
    if first.region.root is not later.region.root or not (first.write or later.write):
        return False
    if _varies_inside(first.region, loop) or _varies_inside(later.region, loop):
        return True
    return min_conflict_distance(first.region, later.region, loop, earlier.limit) is not None


def _varies_inside(region: Region, loop: scf.ForOp) -> bool:
    """Whether an offset of ``region`` uses a value other than the induction variable that is
    defined inside ``loop`` (so it may differ between two iterations)."""
    iv = loop.body.block.args[0]
    for dim in region.dims:
        start = dim.start.base if isinstance(dim.start, Mod) else dim.start
        terms = start.terms if isinstance(start, Affine) else ()
        for value, _ in terms:
            owner = value.owner
            op = owner if isinstance(owner, Operation) else owner.parent_op()
            if value is not iv and op is not None and loop.is_ancestor(op):
                return True
    return False
