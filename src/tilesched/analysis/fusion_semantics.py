"""What each op is to tile fusion: the op-semantics table of ``fuse-tiles`` (docs/fuse-tiles.md).

Every op falls in one class:

- ``compute``: vector compute a fused span may hold: elementwise binary (``add sub mul div max
  min``), scalar forms (``adds subs muls maxs``), unary (``exp neg abs relu cast rsqrt``), ``fill``, ``fills``,
  ``rowexpand_*`` and the row reductions (``rowsum rowmax``);
- ``local-boundary``: ``tile.reshape``: same bytes under a new shape, so the iteration domain
  changes; never fused, but it may move like any op with known effects;
- ``movable``: other ops whose effects the analysis knows (``load store copy matmul``,
  ``memref.dealloc``): never fused, moved only within their dependences;
- ``pure``: no effects at all (index math, ``tile.view``, ``tile.slot``, ``memref.alloc``,
  scalar ``math``): never block movement and never stay inside a span;
- ``hard-boundary``: ``tile.call``, sync ops, stage borders, loops and conditionals, and every op
  the analysis does not know: never fused, and nothing moves across them.

A compute op's *iteration domain* is the static shape it iterates over: its input's shape
(a row reduction belongs to its input's domain, not to its ``Mx1`` output's; ``fill`` to its
destination's), together with that operand's *valid region* (``tile.view ... valid``, keyed by
:func:`tilesched.ir.valid.valid_region`: two ops share a domain only when their valid extents
provably agree, as the verifier already requires of one op's operands). An op with a dynamic or
missing shape has no domain and is not fused. This
table mirrors the anchor's FusionOpSemantics idea (seed 002) with tilesched's op set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation
from xdsl.traits import IsTerminator

from tilesched.ir import tile as T
from tilesched.ir.valid import valid_region

COMPUTE = "compute"
LOCAL_BOUNDARY = "local-boundary"
MOVABLE = "movable"
PURE = "pure"
HARD_BOUNDARY = "hard-boundary"

_ELEMENTWISE = (T.AddOp, T.SubOp, T.MulOp, T.DivOp, T.MaxOp, T.MinOp, T.AddsOp, T.SubsOp,
                T.MulsOp, T.MaxsOp, T.ExpOp, T.NegOp, T.AbsOp, T.ReluOp, T.CastOp, T.RsqrtOp)
_ROW_REDUCTIONS = (T.RowsumOp, T.RowmaxOp)
_ROW_EXPANDS = (T.RowexpandSubOp, T.RowexpandMulOp, T.RowexpandDivOp)
COMPUTE_OPS = (*_ELEMENTWISE, *_ROW_REDUCTIONS, *_ROW_EXPANDS, T.FillOp, T.FillsOp)
_MOVABLE_OPS = (T.LoadOp, T.StoreOp, T.CopyOp, T.MatmulOp, memref.DeallocOp)
_PURE_OPS = (T.ViewOp, T.SlotOp, memref.AllocOp)
_PURE_PREFIXES = ("arith.", "math.", "affine.apply")


@dataclass(frozen=True)
class OpSemantics:
    """The class of an op, its iteration domain (compute ops with static shapes) and why."""

    kind: str
    domain: tuple[int, ...] | None = None
    reason: str = ""
    valid: tuple | None = None  # the domain's valid extents (ir/valid.py keys)

    @property
    def fusible(self) -> bool:
        """A compute op with a known iteration domain."""
        return self.kind == COMPUTE and self.domain is not None

    @property
    def elements(self) -> int:
        return math.prod(self.domain) if self.domain else 0


_MOVABLE_SEMANTICS = OpSemantics(MOVABLE, None, "only vector compute ops are fused")
_PURE_SEMANTICS = OpSemantics(PURE)


def op_semantics(op: Operation) -> OpSemantics:
    """The op-semantics table (see the module docstring)."""
    kind = _class_kind(type(op))
    if kind == COMPUTE:
        domain = iteration_domain(op)
        if domain is None:
            return OpSemantics(COMPUTE, None, "its operands have no static shape")
        memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
        anchor = memrefs[-1] if isinstance(op, T.FillOp | T.FillsOp) else memrefs[0]
        return OpSemantics(COMPUTE, domain, "", valid_region(anchor))
    if kind == LOCAL_BOUNDARY:
        return OpSemantics(LOCAL_BOUNDARY, None, "a reshape changes the iteration domain")
    if kind == MOVABLE:
        return _MOVABLE_SEMANTICS
    if kind == PURE or op.name.startswith(_PURE_PREFIXES):
        return _PURE_SEMANTICS
    if kind == "call":
        return OpSemantics(HARD_BOUNDARY, None, "an opaque call has unknown effects")
    if op.name.startswith("sync.") or isinstance(op, T.StageBorderOp):
        return OpSemantics(HARD_BOUNDARY, None, f"'{op.name}' orders the units around it")
    if op.regions:
        return OpSemantics(HARD_BOUNDARY, None, f"'{op.name}' holds a region")
    if op.has_trait(IsTerminator):
        return OpSemantics(HARD_BOUNDARY, None, "a block terminator")
    return OpSemantics(HARD_BOUNDARY, None, f"the analysis does not know '{op.name}': treated "
                                            "as a hard boundary (unknown effects)")


@cache
def _class_kind(cls: type) -> str | None:
    """The table's verdict from an op's class alone (first match in the table's order), or
    None when the op itself decides; once per class (``isinstance`` on op classes is slow)."""
    for classes, kind in ((COMPUTE_OPS, COMPUTE), (T.ReshapeOp, LOCAL_BOUNDARY),
                          (_MOVABLE_OPS, MOVABLE), (_PURE_OPS, PURE), (T.CallOp, "call")):
        if issubclass(cls, classes):
            return kind
    return None


def iteration_domain(op: Operation) -> tuple[int, ...] | None:
    """The static shape a compute op iterates over, or None when any memref operand is dynamic."""
    shapes = []
    for value in op.operands:
        if type(value.type) is MemRefType or isinstance(value.type, MemRefType):
            shape = tuple(value.type.get_shape())
            if not shape or any(dim < 0 for dim in shape):
                return None
            shapes.append(shape)
    if not shapes:
        return None
    if isinstance(op, T.FillOp | T.FillsOp):
        return shapes[-1]
    return shapes[0]  # the input: row reductions iterate over it, not over their Mx1 output


def is_unknown(op: Operation) -> bool:
    """An op the table does not know (a hard boundary by default; a remark under --verbose)."""
    if _class_kind(type(op)) == COMPUTE:
        return False  # known, whatever its shapes (and the shapes are the slow part)
    semantics = op_semantics(op)
    return semantics.kind == HARD_BOUNDARY and semantics.reason.startswith("the analysis does not know")
