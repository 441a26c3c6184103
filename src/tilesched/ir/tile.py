"""The ``tile`` dialect: tile operations on memref buffers (DESIGN.md §2).

Convention: every tile op writes its **last** operand and reads every other
memref operand (``tile.matmul {accumulate}`` also reads its last). Non-memref
operands are scalars. Each op has a readable custom syntax and the generic MLIR
form; properties may also be written in the attribute dictionary of the generic
form (``ParsePropInAttrDict``), as tests outside the project do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tilesched.ir.types import element_bytes, memref_shape, verify_tile_memref


class TileOp(IRDLOperation):
    """Base of every tile op: optional ``pipe`` override and ``latency`` in cycles."""

    pipe = opt_prop_def(StringAttr)
    latency = opt_prop_def(IntegerAttr[I64])

    irdl_options = (ParsePropInAttrDict(),)

    @property
    def memref_operands(self) -> list[SSAValue]:
        return [v for v in self.operands if isinstance(v.type, MemRefType)]

    def written(self) -> SSAValue:
        """The operand this op writes (its last)."""
        return self.operands[-1]

    def read_operands(self) -> list[SSAValue]:
        """Memref operands this op reads."""
        return self.memref_operands[:-1]

    def verify_(self) -> None:
        if self.latency is not None and self.latency.value.data < 0:
            raise VerifyException(f"'{self.name}' latency must be non-negative")
        for value in self.operands:
            if isinstance(value.type, MemRefType):
                verify_tile_memref(value.type, self.name)
        self.verify_tile()

    def verify_tile(self) -> None:
        """Op-specific shape and type rules."""


def _variant(base: type[TileOp], op_name: str, doc: str) -> type[TileOp]:
    """Define op ``tile.<op_name>`` sharing ``base``'s operands, syntax and verifier."""
    cls_name = "".join(part.title() for part in op_name.split("_")) + "Op"
    return irdl_op_definition(type(cls_name, (base,), {"name": f"tile.{op_name}", "__doc__": doc}))


def _shapes(op: IRDLOperation) -> list[tuple[int, ...]]:
    return [memref_shape(v.type) for v in op.operands if isinstance(v.type, MemRefType)]


def _same_shape(op: IRDLOperation, what: str = "operands") -> None:
    shapes = _shapes(op)
    if len(set(shapes)) > 1:
        pretty = ", ".join("x".join(map(str, s)) for s in shapes)
        raise VerifyException(f"'{op.name}' {what} must have the same shape, got {pretty}")


def _same_element_type(op: IRDLOperation) -> None:
    types = {v.type.element_type for v in op.operands if isinstance(v.type, MemRefType)}
    if len(types) > 1:
        raise VerifyException(
            f"'{op.name}' operands must have the same element type, got "
            + ", ".join(sorted(str(t) for t in types))
        )


def _memref_def():
    return operand_def(MemRefType)


# --- data movement -----------------------------------------------------------------------


class _MoveOp(TileOp):
    """src -> dst of the same shape; the element type may change (e.g. FixPipe f32 -> f16)."""

    src = _memref_def()
    dst = _memref_def()
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def verify_tile(self) -> None:
        _same_shape(self, "source and destination")


@irdl_op_definition
class LoadOp(_MoveOp):
    """Copy from a global space into a local one."""

    name = "tile.load"


@irdl_op_definition
class StoreOp(_MoveOp):
    """Copy from a local space into a global one."""

    name = "tile.store"


@irdl_op_definition
class CopyOp(_MoveOp):
    """Local-to-local move (L1->L0A, L0C->L1, UB->UB, ...)."""

    name = "tile.copy"


@irdl_op_definition
class ReshapeOp(TileOp):
    """Same bytes, new shape (a fusion boundary)."""

    name = "tile.reshape"
    src = _memref_def()
    dst = _memref_def()
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def verify_tile(self) -> None:
        sizes = [math.prod(memref_shape(v.type)) * element_bytes(v.type) for v in self.operands]
        if sizes[0] != sizes[1]:
            raise VerifyException(
                f"'tile.reshape' must keep the byte size: source has {sizes[0]} bytes, "
                f"destination {sizes[1]}"
            )


# --- compute -------------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(TileOp):
    """c = a @ b, or c += a @ b with ``accumulate``."""

    name = "tile.matmul"
    a = _memref_def()
    b = _memref_def()
    c = _memref_def()
    accumulate = opt_prop_def(UnitAttr)
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)"

    def read_operands(self) -> list[SSAValue]:
        reads = [self.a, self.b]
        return reads + [self.c] if self.accumulate is not None else reads

    def verify_tile(self) -> None:
        a, b, c = _shapes(self)
        if len(a) != 2 or len(b) != 2 or len(c) != 2:
            raise VerifyException("'tile.matmul' operands must be 2-d")
        if a[1] != b[0] or c != (a[0], b[1]):
            raise VerifyException(
                f"'tile.matmul' shapes do not match: a {a[0]}x{a[1]}, b {b[0]}x{b[1]}, "
                f"c {c[0]}x{c[1]} (need a MxK, b KxN, c MxN)"
            )


class _BinaryOp(TileOp):
    a = _memref_def()
    b = _memref_def()
    dst = _memref_def()
    assembly_format = "$a `,` $b `,` $dst attr-dict `:` type($a) `,` type($b) `,` type($dst)"

    def verify_tile(self) -> None:
        _same_shape(self)
        _same_element_type(self)


AddOp = _variant(_BinaryOp, "add", "dst = a + b")
SubOp = _variant(_BinaryOp, "sub", "dst = a - b")
MulOp = _variant(_BinaryOp, "mul", "dst = a * b")
DivOp = _variant(_BinaryOp, "div", "dst = a / b")
MaxOp = _variant(_BinaryOp, "max", "dst = max(a, b)")
MinOp = _variant(_BinaryOp, "min", "dst = min(a, b)")


class _ScalarOp(TileOp):
    a = _memref_def()
    scalar = operand_def()
    dst = _memref_def()
    assembly_format = "$a `,` $scalar `,` $dst attr-dict `:` type($a) `,` type($scalar) `,` type($dst)"

    def verify_tile(self) -> None:
        if isinstance(self.scalar.type, MemRefType):
            raise VerifyException(f"'{self.name}' second operand must be a scalar, not a memref")
        if not isinstance(self.scalar.type, AnyFloat | IntegerType | IndexType):
            raise VerifyException(f"'{self.name}' scalar must be a float, integer or index")
        _same_shape(self)
        _same_element_type(self)


AddsOp = _variant(_ScalarOp, "adds", "dst = a + scalar")
SubsOp = _variant(_ScalarOp, "subs", "dst = a - scalar")
MulsOp = _variant(_ScalarOp, "muls", "dst = a * scalar")
MaxsOp = _variant(_ScalarOp, "maxs", "dst = max(a, scalar)")


class _UnaryOp(TileOp):
    a = _memref_def()
    dst = _memref_def()
    assembly_format = "$a `,` $dst attr-dict `:` type($a) `,` type($dst)"

    def verify_tile(self) -> None:
        _same_shape(self)
        if self.name != "tile.cast":
            _same_element_type(self)


ExpOp = _variant(_UnaryOp, "exp", "dst = exp(a)")
NegOp = _variant(_UnaryOp, "neg", "dst = -a")
AbsOp = _variant(_UnaryOp, "abs", "dst = |a|")
ReluOp = _variant(_UnaryOp, "relu", "dst = max(a, 0)")
CastOp = _variant(_UnaryOp, "cast", "dst = a converted to dst's element type")
RsqrtOp = _variant(_UnaryOp, "rsqrt", "dst = 1 / sqrt(a)")


class _RowReduceOp(TileOp):
    a = _memref_def()
    dst = _memref_def()
    assembly_format = "$a `,` $dst attr-dict `:` type($a) `,` type($dst)"

    def verify_tile(self) -> None:
        a, dst = _shapes(self)
        if len(a) != 2 or dst != (a[0], 1):
            raise VerifyException(
                f"'{self.name}' needs a 2-d input MxN and a Mx1 output (one column), got "
                f"{'x'.join(map(str, a))} -> {'x'.join(map(str, dst))}"
            )


RowsumOp = _variant(_RowReduceOp, "rowsum", "dst[i, 0] = sum_j a[i, j]")
RowmaxOp = _variant(_RowReduceOp, "rowmax", "dst[i, 0] = max_j a[i, j]")


class _RowExpandOp(TileOp):
    a = _memref_def()
    row = _memref_def()
    dst = _memref_def()
    assembly_format = "$a `,` $row `,` $dst attr-dict `:` type($a) `,` type($row) `,` type($dst)"

    def verify_tile(self) -> None:
        a, row, dst = _shapes(self)
        if len(a) != 2 or dst != a or row != (a[0], 1):
            raise VerifyException(
                f"'{self.name}' needs a MxN, row Mx1 and dst MxN, got "
                + ", ".join("x".join(map(str, s)) for s in (a, row, dst))
            )
        _same_element_type(self)


RowexpandSubOp = _variant(_RowExpandOp, "rowexpand_sub", "dst[i, j] = a[i, j] - row[i, 0]")
RowexpandMulOp = _variant(_RowExpandOp, "rowexpand_mul", "dst[i, j] = a[i, j] * row[i, 0]")
RowexpandDivOp = _variant(_RowExpandOp, "rowexpand_div", "dst[i, j] = a[i, j] / row[i, 0]")


@irdl_op_definition
class FillOp(TileOp):
    """dst = ``value`` everywhere."""

    name = "tile.fill"
    dst = _memref_def()
    value = prop_def(FloatAttr | IntegerAttr)
    assembly_format = "$dst attr-dict `:` type($dst)"

    def read_operands(self) -> list[SSAValue]:
        return []


@irdl_op_definition
class FillsOp(TileOp):
    """dst = ``scalar`` everywhere: ``tile.fill`` from an SSA scalar (the scalar form, as
    ``adds`` is of ``add``; PTO's ``TEXPANDS``)."""

    name = "tile.fills"
    scalar = operand_def()
    dst = _memref_def()
    assembly_format = "$scalar `,` $dst attr-dict `:` type($scalar) `,` type($dst)"

    def read_operands(self) -> list[SSAValue]:
        return []

    def verify_tile(self) -> None:
        if not isinstance(self.scalar.type, AnyFloat | IntegerType | IndexType):
            raise VerifyException("'tile.fills' scalar must be a float, integer or index")


@irdl_op_definition
class CallOp(TileOp):
    """Opaque call: unknown effects on all its operands, a hard scheduling barrier."""

    name = "tile.call"
    args = var_operand_def()
    callee = prop_def(StringAttr | SymbolRefAttr)
    assembly_format = "$args attr-dict (`:` type($args)^)?"

    def written(self) -> SSAValue | None:
        return self.operands[-1] if self.operands else None

    def read_operands(self) -> list[SSAValue]:
        return self.memref_operands


# --- views and markers -----------------------------------------------------------------------


@irdl_op_definition
class ViewOp(IRDLOperation):
    """A rectangular window of ``source`` at element offsets (one per dimension) of shape ``sizes``,
    optionally with a *valid region*: one ``index`` extent per dimension after the offsets
    (``tile.view %b[%i, %j] valid [%vr, %vc]``; generic form: the extents follow the offsets in
    the operand list). Tile ops on the result compute only on its first ``valid`` elements along
    each dimension (PTO's tiles with a static storage shape and a run-time valid shape); without
    ``valid`` the whole window is valid (docs/ir.md, "Valid regions")."""

    name = "tile.view"
    source = _memref_def()
    indices = var_operand_def(IndexType)  # the offsets, then the valid extents if any
    sizes = prop_def(DenseArrayBase)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)

    @property
    def size_list(self) -> tuple[int, ...]:
        return tuple(self.sizes.get_values())

    @property
    def offsets(self) -> Sequence[SSAValue]:
        """One offset per dimension (the first ``rank`` index operands)."""
        return self.indices[:len(self.sizes.get_values())]

    @property
    def valid(self) -> Sequence[SSAValue]:
        """The valid extents, one per dimension, or none (the whole window is valid)."""
        return self.indices[len(self.sizes.get_values()):]

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        """``%src[%o, ...] (valid [%v, ...])? {attrs}? : T -> T``"""
        source = parser.parse_unresolved_operand()
        square = parser.Delimiter.SQUARE
        offsets = parser.parse_comma_separated_list(square, parser.parse_unresolved_operand)
        valid = []
        if parser.parse_optional_keyword("valid") is not None:
            valid = parser.parse_comma_separated_list(square, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        properties = {"sizes": attributes.pop("sizes")} if "sizes" in attributes else {}
        operands = [parser.resolve_operand(source, source_type)]
        operands += [parser.resolve_operand(o, IndexType()) for o in offsets + valid]
        return cls.create(operands=operands, result_types=[result_type], properties=properties,
                          attributes=attributes)

    def print(self, printer: Printer) -> None:
        rank = len(self.sizes.get_values()) if isinstance(self.sizes, DenseArrayBase) else 0
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string("[")
        printer.print_list(self.indices[:rank], printer.print_operand)
        printer.print_string("]")
        if len(self.indices) > rank:
            printer.print_string(" valid [")
            printer.print_list(self.indices[rank:], printer.print_operand)
            printer.print_string("]")
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        src = memref_shape(self.source.type)
        sizes = self.size_list
        if len(sizes) != len(src) or len(self.indices) not in (len(src), 2 * len(src)):
            raise VerifyException(
                f"'tile.view' needs one offset and one size per dimension of the {len(src)}-d source, "
                f"got {len(self.indices)} offsets and {len(sizes)} sizes (a valid region adds one "
                "extent per dimension after the offsets)"
            )
        if any(s <= 0 or s > d for s, d in zip(sizes, src, strict=True)):
            raise VerifyException(f"'tile.view' sizes {list(sizes)} do not fit in source shape {list(src)}")
        _check_result(self.name, self.source.type, self.result.type, sizes)


@irdl_op_definition
class SlotOp(IRDLOperation):
    """The k-th slice along dim 0 of a multi-buffer (``0 <= k < N``)."""

    name = "tile.slot"
    source = _memref_def()
    index = operand_def(IndexType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source `[` $index `]` attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        src = memref_shape(self.source.type)
        if len(src) < 2:
            raise VerifyException("'tile.slot' source must have a leading slot dimension and at least one more")
        _check_result(self.name, self.source.type, self.result.type, src[1:])


def _check_result(op_name: str, source: MemRefType, result: MemRefType, shape: Sequence[int]) -> None:
    if memref_shape(result) != tuple(shape):
        raise VerifyException(
            f"'{op_name}' result shape {list(memref_shape(result))} does not match {list(shape)}"
        )
    if result.element_type != source.element_type:
        raise VerifyException(f"'{op_name}' result element type must match the source's")
    if result.memory_space != source.memory_space:
        raise VerifyException(f"'{op_name}' result memory space must match the source's")


@irdl_op_definition
class StageBorderOp(IRDLOperation):
    """Warp-pipeline marker: ops before it belong to the stage it closes."""

    name = "tile.stage_border"
    label = prop_def(StringAttr)
    priority = opt_prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$label attr-dict"

    def verify_(self) -> None:
        from tilesched.ir.sync import priority_error  # sync.py's rule; it imports nothing here

        priority_error(self)


TILE_OPS: list[type[IRDLOperation]] = [
    LoadOp, StoreOp, CopyOp, ReshapeOp, MatmulOp,
    AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, AddsOp, SubsOp, MulsOp, MaxsOp,
    ExpOp, NegOp, AbsOp, ReluOp, CastOp, RsqrtOp, RowsumOp, RowmaxOp,
    RowexpandSubOp, RowexpandMulOp, RowexpandDivOp, FillOp, FillsOp, CallOp,
    ViewOp, SlotOp, StageBorderOp,
]

Tile = Dialect("tile", TILE_OPS, [])

# Discardable attributes passes write on ops (DESIGN.md §2).
STAGE = "tile.stage"
ORDER = "tile.order"
ASYNC = "tile.async"
ASYNC_STAGES = "tile.async_stages"
FUSION_GROUP = "tile.fusion_group"
FUSION_ORDER = "tile.fusion_order"
LAST_USE = "tile.last_use"
# A unit attribute on func.func: the function is a kernel entry (its on-chip memref arguments
# do not outlive it; docs/ir.md, DESIGN.md §2 Fusion contract).
KERNEL = "tile.kernel"

__all__ = ["TILE_OPS", "Tile", "TileOp", "Attribute"]
