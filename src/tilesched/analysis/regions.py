"""Resolve a memref operand to its root buffer and the region it covers, and prove disjointness.

A root is a function argument or a ``memref.alloc``. ``tile.view`` narrows each
dimension to ``[offset, offset + size)``; ``tile.slot`` fixes the leading
dimension to ``[k, k + 1)``. Offsets are symbolic (:mod:`tilesched.ir.affine`),
so two regions of one root are *provably disjoint* when, in some dimension, the
difference of their starts is a known constant at least the size of the lower
one, or both are slots ``(e + c1) mod N`` and ``(e + c2) mod N`` with
``c1 != c2 (mod N)``. Anything else may alias (the conservative answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from tilesched.ir.affine import Affine, IndexExpr, Mod, index_expr
from tilesched.ir.tile import SlotOp, ViewOp
from tilesched.ir.types import memref_shape


@dataclass(frozen=True)
class Interval:
    """``[start, start + size)`` along one dimension of the root buffer."""

    start: IndexExpr
    size: int

    def substitute(self, value: SSAValue, replacement: Affine) -> Interval:
        if self.start is None:
            return self
        return Interval(self.start.substitute(value, replacement), self.size)


@dataclass(frozen=True)
class Region:
    """The part of ``root`` an operand covers: one interval per root dimension."""

    root: SSAValue
    dims: tuple[Interval, ...]

    def substitute(self, value: SSAValue, replacement: Affine) -> Region:
        return Region(self.root, tuple(d.substitute(value, replacement) for d in self.dims))

    def concrete(self, env: dict[SSAValue, int]) -> tuple[tuple[int, int], ...]:
        """Half-open element ranges per root dimension, given values for the symbols."""
        out = []
        for dim in self.dims:
            if dim.start is None:
                raise ValueError("region offset is not an index expression")
            start = dim.start.evaluate(env)
            out.append((start, start + dim.size))
        return tuple(out)


def root_region(value: SSAValue) -> Region:
    """Follow views and slots from ``value`` back to its root buffer."""
    chain = []
    current = value
    while isinstance(current.owner, ViewOp | SlotOp):
        chain.append(current.owner)
        current = current.owner.source
    shape = memref_shape(current.type) if isinstance(current.type, MemRefType) else ()
    dims = [Interval(Affine(0), size) for size in shape]
    dim_map = list(range(len(shape)))  # current value's dims -> root dims
    for op in reversed(chain):
        if isinstance(op, SlotOp):
            root_dim = dim_map.pop(0)
            dims[root_dim] = Interval(_add(dims[root_dim].start, index_expr(op.index)), 1)
        else:
            for j, (offset, size) in enumerate(zip(op.offsets, op.size_list, strict=True)):
                root_dim = dim_map[j]
                dims[root_dim] = Interval(_add(dims[root_dim].start, index_expr(offset)), size)
    return Region(current, tuple(dims))


def _add(base: IndexExpr, offset: IndexExpr) -> IndexExpr:
    if isinstance(base, Affine) and isinstance(offset, Affine):
        return base + offset
    if isinstance(offset, Affine) and offset.is_constant and offset.const == 0:
        return base
    if isinstance(base, Affine) and base.is_constant and base.const == 0:
        return offset
    return None


def disjoint(a: Region, b: Region) -> bool:
    """True only when the two regions provably share no element."""
    if a.root is not b.root:
        return True
    return any(_intervals_disjoint(x, y) for x, y in zip(a.dims, b.dims, strict=True))


def _intervals_disjoint(x: Interval, y: Interval) -> bool:
    if type(x.start) is Affine and type(y.start) is Affine and not x.start.terms \
            and not y.start.terms:  # fast path: constant offsets
        delta = y.start.const - x.start.const
        return delta >= x.size or -delta >= y.size
    if isinstance(x.start, Affine) and isinstance(y.start, Affine):
        delta = y.start - x.start
        if delta.is_constant:
            return delta.const >= x.size or -delta.const >= y.size
        return False
    if isinstance(x.start, Mod) and isinstance(y.start, Mod) and x.start.modulus == y.start.modulus:
        delta = y.start.base - x.start.base
        if delta.is_constant and x.size == 1 and y.size == 1:
            return delta.const % x.start.modulus != 0
    return False
