"""Element-exact liveness of local buffers: the facts behind ``tile.last_use`` and fusion costs.

A read slot of a tile op is a *last use* (DESIGN.md §2, Fusion contract) when its buffer is local
to the function (a ``memref.alloc``, or a view or slot of one; or an on-chip memref argument of a
kernel entry, a function with the ``tile.kernel`` attribute, whose buffers do not outlive it:
on-chip means in a space the target does not call global) and no element of the region it
reads is read again before being overwritten: not later in the block, not in a later iteration
of an enclosing loop, not after it. The op's own write counts as an overwrite; the op's other
slots are not "later".

The analysis is classic backward liveness, per element: one bitset per root buffer (a Python
integer, bit ``k`` the ``k``-th element in row-major order), "this element will be read before it
is overwritten". The function body is walked backward;
each op's slots are judged against the liveness *after* it, then the op's write kills and its
reads generate. The verdict of a static op is the AND over all its dynamic instances:

- loops with constant bounds are unrolled (iterations walked last to first, the induction
  variable bound), so views and slots indexed by it are decided exactly;
- a loop with unknown bounds (or too many instances, :data:`INSTANCE_BUDGET`) is walked twice
  with an unknown induction variable: the second walk starts from the liveness after the loop
  united with the body's own live-in, which is the fixpoint for gen/kill transfer functions;
- both branches of an ``scf.if`` are walked and their live-ins united;
- a region the analysis cannot evaluate (an unknown offset, or any region of a
  buffer with a dynamic shape, whose elements cannot be numbered) reads the whole root and kills
  nothing; a write through a valid region (``tile.view ... valid``) that may be smaller than
  its window kills nothing either (it may leave part of the window as it was); an op it does not know reads every buffer it touches; a ``memref.alloc`` kills its
  buffer (each execution makes a fresh one).

The same walk records whether what an op writes *escapes* its block: whether some element of it
is still live at the block's end without being overwritten later in the block (read by a later
iteration, after a loop, or never killed in a function that returns it).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.fusion_semantics import HARD_BOUNDARY, PURE, op_semantics
from tilesched.analysis.regions import Region, root_region
from tilesched.ir.affine import Affine, constant_value
from tilesched.ir.blocks import is_kernel_entry
from tilesched.ir.tile import CallOp, TileOp
from tilesched.ir.types import memory_space, memref_shape
from tilesched.ir.valid import is_partial

INSTANCE_BUDGET = 400_000  # op instances walked at most before loops are summarized

Live = dict[SSAValue, int]  # root buffer -> bitset of its live elements
Box = tuple[tuple[int, int], ...]  # half-open element ranges per dimension of a root
_Operand = tuple[Region, "Box | None"]  # a root region, its constant box if any


@dataclass
class LivenessFacts:
    """Per tile op: last-use verdict per memref operand, and whether its write escapes."""

    last_use: dict[Operation, list[bool]] = field(default_factory=dict)
    escapes: dict[Operation, bool] = field(default_factory=dict)

    def flags(self, op: Operation) -> list[bool]:
        """The ``tile.last_use`` flags of ``op`` (all false when it never ran)."""
        count = sum(isinstance(v.type, MemRefType) for v in op.operands)
        return self.last_use.get(op, [False] * count)


def function_liveness(function: func.FuncOp, budget: int = INSTANCE_BUDGET,
                      global_spaces: Collection[str] | None = None) -> LivenessFacts:
    """Last-use flags and escapes of every tile op of ``function`` (see the module docstring).
    ``global_spaces``: the target's global memory spaces; without them no argument is local."""
    walker = _Walker(function, budget)
    if walker.opaque:
        return walker.facts  # memrefs of unknown origin may alias anything: no flag is true
    live: Live = {}
    owned = global_spaces is not None and is_kernel_entry(function)
    for arg in function.body.block.args:
        if not isinstance(arg.type, MemRefType):
            continue
        if owned and memory_space(arg.type) not in global_spaces:
            walker.local.add(arg)  # a kernel entry's on-chip buffer dies with it
        else:
            live[arg] = walker.everything(arg)  # read after the function returns
    walker.block(function.body.block, {}, live, record=True)
    return walker.facts


class _Walker:
    """One backward walk over a function (see the module docstring)."""

    def __init__(self, function: func.FuncOp, budget: int):
        self.facts = LivenessFacts()
        self.budget = budget
        self.opaque = _has_opaque_memrefs(function)
        self.local = {op.memref for op in function.walk() if isinstance(op, memref.AllocOp)}
        self.operands: dict[Operation, tuple[list[_Operand], int, bool]] = {}  # per tile op, once
        self.described: dict[SSAValue, _Operand] = {}  # per memref value, once
        self.shapes: dict[SSAValue, tuple[int, ...]] = {}  # per root
        self.bits: dict[tuple[tuple[int, ...], Box], int] = {}  # (root shape, box) -> bitset

    # ---------------------------------------------------------------- structure

    def block(self, block: Block, env: dict, live: Live, record: bool) -> None:
        """Walk ``block`` backward, turning ``live`` (after it) into the liveness before it."""
        exit_live = dict(live) if record else None
        for op in reversed(list(block.ops)):
            self.budget -= 1
            self.op(op, env, live, exit_live, record)

    def op(self, op: Operation, env: dict, live: Live, exit_live: Live | None, record: bool) -> None:
        if isinstance(op, memref.AllocOp | memref.DeallocOp):
            root = op.memref if isinstance(op, memref.AllocOp) else root_region(op.memref).root
            for state in (live, exit_live):
                if state is not None and root in state:
                    state[root] = 0
            return
        if isinstance(op, scf.ForOp):
            self.loop(op, env, live, record)
        elif isinstance(op, scf.IfOp):
            self.branches(op, env, live, record)
        elif isinstance(op, TileOp) and not isinstance(op, CallOp):
            self.tile(op, env, live, exit_live, record)
        elif op_semantics(op).kind == HARD_BOUNDARY:
            # a call reads every operand it takes; an op the analysis does not know reads
            # whatever it touches (and its writes kill nothing)
            for value in _memrefs_used(op):
                region = root_region(value)
                self.gen(live, region, _box(region, env))

    def loop(self, loop: scf.ForOp, env: dict, live: Live, record: bool) -> None:
        """Unroll a constant loop (last iteration first), else summarize it (two walks)."""
        body = loop.body.block
        bounds = [_evaluate(v, env) for v in (loop.lb, loop.ub, loop.step)]
        size = sum(1 for _ in loop.walk())
        if None not in bounds and bounds[2] > 0:
            values = range(bounds[0], bounds[1], bounds[2])
            if len(values) * size <= self.budget:
                for value in reversed(values):
                    self.block(body, {**env, body.args[0]: value}, live, record)
                return
        inner = {k: v for k, v in env.items() if k is not body.args[0]}
        after = dict(live)
        self.block(body, inner, live, record=False)  # live now: the body's live-in from `after`
        _unite(live, after)
        start = dict(live)
        self.block(body, inner, live, record)  # from the fixpoint: every iteration's live-out
        _unite(live, start)  # zero iterations: the liveness after the loop flows through

    def branches(self, op: scf.IfOp, env: dict, live: Live, record: bool) -> None:
        """Both branches from the same liveness; the live-in is their union."""
        results = []
        for region in (op.true_region, op.false_region):
            state = dict(live)
            for block in region.blocks:
                self.block(block, env, state, record)
            results.append(state)
        live.clear()
        live.update(results[0])
        _unite(live, results[1])

    # ---------------------------------------------------------------- tile ops

    def tile(self, op: TileOp, env: dict, live: Live, exit_live: Live | None, record: bool) -> None:
        operands, reads, partial = self.tile_operands(op)
        written, fixed = operands[-1]
        # a write through a valid region may leave part of its window as it was: it kills nothing
        write_box = None if partial else fixed if fixed is not None else _box(written, env)
        if record:
            flags = [self.judge(operand, written, write_box, env, live)
                     for operand in operands[:reads]]
            flags += [False] * (len(operands) - len(flags))
            old = self.facts.last_use.get(op)
            self.facts.last_use[op] = flags if old is None else [a and b for a, b in zip(old, flags, strict=True)]
            if exit_live is not None:
                escapes = self.any_live(exit_live, written, write_box)
                self.facts.escapes[op] = self.facts.escapes.get(op, False) or escapes
        self.kill(live, written, write_box)
        if exit_live is not None:
            self.kill(exit_live, written, write_box)
        for region, fixed in operands[:reads]:
            self.gen(live, region, fixed if fixed is not None else _box(region, env))

    def tile_operands(self, op: TileOp) -> tuple[list[_Operand], int, bool]:
        """The memref operands of ``op`` (region, constant box), how many it reads and whether
        its write may cover only part of its region (a valid region, ``ir/valid.py``)."""
        found = self.operands.get(op)
        if found is None:
            memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
            found = self.operands[op] = ([self.describe(v) for v in memrefs],
                                         len(op.read_operands()),
                                         bool(memrefs) and is_partial(memrefs[-1]))
        return found

    def describe(self, value: SSAValue) -> _Operand:
        """``(root region, its box when no offset depends on a symbol, else None)``."""
        found = self.described.get(value)
        if found is None:
            region = root_region(value)
            constant = all(type(d.start) is Affine and not d.start.terms for d in region.dims)
            found = self.described[value] = (region, _box(region, {}) if constant else None)
        return found

    def judge(self, operand: _Operand, written: Region, write_box, env: dict, live: Live) -> bool:
        """Is no element of the operand's region live after the op (its own write excepted)?"""
        region, fixed = operand
        if region.root not in self.local:
            return False
        mask = live.get(region.root)
        if mask is None:
            return True
        box = fixed if fixed is not None else _box(region, env)
        if box is None:
            return not mask
        bits = self.box_bits(region.root, box)
        if written.root is region.root and write_box is not None:
            bits &= ~self.box_bits(region.root, write_box)  # the op's own write is not later
        return not mask & bits

    def kill(self, live: Live, region: Region, box: Box | None) -> None:
        if box is not None and region.root in live:
            live[region.root] &= ~self.box_bits(region.root, box)

    def gen(self, live: Live, region: Region, box: Box | None) -> None:
        """Mark ``box`` of ``region``'s root live (the whole root when ``box`` is None)."""
        root = region.root
        if root not in live:
            if not isinstance(root.type, MemRefType):
                return
            live[root] = 0
        if box is None:
            live[root] = self.everything(root)
        else:
            live[root] |= self.box_bits(root, box)

    def any_live(self, live: Live, region: Region, box: Box | None) -> bool:
        mask = live.get(region.root)
        if not mask:
            return False
        return box is None or bool(mask & self.box_bits(region.root, box))

    # ---------------------------------------------------------------- bitsets

    def shape(self, root: SSAValue) -> tuple[int, ...]:
        found = self.shapes.get(root)
        if found is None:
            found = self.shapes[root] = memref_shape(root.type)
        return found

    def everything(self, root: SSAValue) -> int:
        """The bitset of every element of ``root``; one bit standing for the whole buffer when
        its shape is dynamic (its regions have no box: reads gen it whole, writes kill nothing)."""
        shape = self.shape(root)
        if not _static(shape):
            return 1
        return (1 << math.prod(shape)) - 1

    def box_bits(self, root: SSAValue, box: Box) -> int:
        """The bitset of the elements of ``box`` in ``root`` (row-major), made once per shape
        and box."""
        shape = self.shape(root)
        key = (shape, box)
        found = self.bits.get(key)
        if found is None:
            inside = np.zeros(shape, dtype=bool)
            inside[tuple(slice(lo, hi) for lo, hi in box)] = True
            packed = np.packbits(inside.reshape(-1), bitorder="little").tobytes()
            found = self.bits[key] = int.from_bytes(packed, "little")
        return found


# -------------------------------------------------------------------- helpers


def _has_opaque_memrefs(function: func.FuncOp) -> bool:
    """Memref values that are not arguments, allocations, views or slots (region results,
    loop-carried memrefs, results of unknown ops): the analysis cannot tell what they alias."""
    for op in function.walk():
        if any(isinstance(r.type, MemRefType) for r in op.results) and not (
                isinstance(op, memref.AllocOp)
                or op.name.startswith("tile.") and op_semantics(op).kind == PURE):
            return True
        for region in op.regions:
            for block in region.blocks:
                if op is not function and any(isinstance(a.type, MemRefType) for a in block.args):
                    return True
    return False


def _memrefs_used(op: Operation) -> list[SSAValue]:
    """Memref operands of ``op`` and of everything nested in it."""
    return [v for inner in op.walk() for v in inner.operands if isinstance(v.type, MemRefType)]


def _unite(live: Live, other: Live) -> None:
    for root, mask in other.items():
        live[root] = live.get(root, 0) | mask


def _static(shape: tuple[int, ...]) -> bool:
    """No dimension is dynamic (``?``, a negative size in the type)."""
    return all(size >= 0 for size in shape)


def _box(region: Region, env: dict) -> Box | None:
    """The region's element ranges, or None when an offset cannot be evaluated or the root's
    shape is dynamic (elements cannot be numbered)."""
    if not _static(memref_shape(region.root.type)):
        return None
    values = {}
    for dim in region.dims:
        start = dim.start
        if start is None:
            return None
        terms = start.terms if hasattr(start, "terms") else start.base.terms
        for symbol, _ in terms:
            if symbol not in values:
                value = _evaluate(symbol, env)
                if value is None:
                    return None
                values[symbol] = value
    try:
        return region.concrete(values)
    except (KeyError, ValueError):
        return None


_FOLD = {
    arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b, arith.FloorDivSIOp: lambda a, b: a // b if b else None,
    arith.DivUIOp: lambda a, b: a // b if b else None, arith.RemUIOp: lambda a, b: a % b if b else None,
    arith.MinSIOp: min, arith.MaxSIOp: max,
}


def _evaluate(value: SSAValue, env: dict, depth: int = 0) -> int | None:
    """The integer value of an index expression given loop variables in ``env``, or None."""
    if value in env:
        return env[value]
    constant = constant_value(value)
    if constant is not None:
        return constant
    owner = value.owner
    if depth > 32 or not isinstance(owner, Operation):
        return None
    if isinstance(owner, arith.IndexCastOp):
        return _evaluate(owner.input, env, depth + 1)
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    fold = _FOLD.get(type(owner))
    if isinstance(owner, arith.DivSIOp | arith.RemSIOp):
        lhs, rhs = _evaluate(owner.lhs, env, depth + 1), _evaluate(owner.rhs, env, depth + 1)
        if lhs is None or not rhs:
            return None
        quotient = abs(lhs) // abs(rhs) * (1 if (lhs >= 0) == (rhs >= 0) else -1)
        return quotient if isinstance(owner, arith.DivSIOp) else lhs - rhs * quotient
    if fold is None:
        return None
    lhs, rhs = _evaluate(owner.lhs, env, depth + 1), _evaluate(owner.rhs, env, depth + 1)
    return None if lhs is None or rhs is None else fold(lhs, rhs)
