"""One method per tile op of DESIGN.md §2."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilesched.ir import tile as T
from tilesched.ir.annotations import CORE_ATTRIBUTE
from tilesched.ir.dsl.located import _error, _is_int, _non_negative
from tilesched.ir.dsl.structure import _Structure
from tilesched.ir.dsl.values import Buffer, Index, Scalar, _Value


class _TileOps(_Structure):
    """One method per tile op of DESIGN.md §2; each writes its last buffer argument.

    Every method takes the keyword options ``pipe`` (unit override), ``latency``
    (cycles), ``stage``, ``order`` and ``async_`` (software-pipelining annotations)
    and returns the created op; ops with buffer operands also take ``core`` (the
    ``tile.core`` annotation of split-core targets: ``core="AIV1"``).
    """

    def _tile(self, op_type: type[Operation], buffers: Sequence[Any],
              scalars: Sequence[SSAValue] = (), props: dict[str, Attribute] | None = None,
              **opts: Any) -> Operation:
        """Create a tile op: buffer operands (last one written), then options and annotations."""
        name = op_type.name
        values = [self._buffer(b, name, f"operand {i + 1}") for i, b in enumerate(buffers)]
        operands = values[:1] + list(scalars) + values[1:] if scalars else values
        options = self._tile_options(name, opts.pop("pipe", None), opts.pop("latency", None))
        core = opts.pop("core", None)
        attributes = {**self._annotations(**_sched(opts, name)), **self._fusion_attributes()}
        if core is not None:
            if not isinstance(core, str) or not core:
                raise _error(f"'{name}' core must be a core name such as \"AIV1\", got {core!r}")
            attributes[CORE_ATTRIBUTE] = StringAttr(core)
        return self._create(op_type, operands, {**(props or {}), **options}, attributes)

    # data movement
    def load(self, src: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.load``: copy from a global space into a local one."""
        return self._tile(T.LoadOp, [src, dst], **opts)

    def store(self, src: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.store``: copy from a local space into a global one."""
        return self._tile(T.StoreOp, [src, dst], **opts)

    def copy(self, src: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.copy``: local-to-local move (L1->L0A, L0C->L1, shared->local, ...)."""
        return self._tile(T.CopyOp, [src, dst], **opts)

    def reshape(self, src: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.reshape``: same bytes, new shape."""
        return self._tile(T.ReshapeOp, [src, dst], **opts)

    # matrix
    def matmul(self, a: Buffer, b: Buffer, c: Buffer, accumulate: bool = False, **opts: Any
               ) -> Operation:
        """``tile.matmul``: ``c = a @ b``, or ``c += a @ b`` with ``accumulate=True``."""
        props = {"accumulate": UnitAttr()} if accumulate else {}
        return self._tile(T.MatmulOp, [a, b, c], props=props, **opts)

    # elementwise binary
    def add(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.add``: ``dst = a + b``."""
        return self._tile(T.AddOp, [a, b, dst], **opts)

    def sub(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.sub``: ``dst = a - b``."""
        return self._tile(T.SubOp, [a, b, dst], **opts)

    def mul(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.mul``: ``dst = a * b``."""
        return self._tile(T.MulOp, [a, b, dst], **opts)

    def div(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.div``: ``dst = a / b``."""
        return self._tile(T.DivOp, [a, b, dst], **opts)

    def max(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.max``: ``dst = max(a, b)``."""
        return self._tile(T.MaxOp, [a, b, dst], **opts)

    def min(self, a: Buffer, b: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.min``: ``dst = min(a, b)``."""
        return self._tile(T.MinOp, [a, b, dst], **opts)

    # elementwise with a scalar
    def _scalar_operand(self, a: Any, scalar: Any, op_name: str) -> SSAValue:
        """A scalar operand: a Scalar or Index value, or a Python number of ``a``'s dtype."""
        if isinstance(scalar, Scalar | Index):
            return self._use(scalar)
        if isinstance(scalar, int | float) and not isinstance(scalar, bool):
            if not isinstance(a, Buffer):
                raise _error(f"'{op_name}' operand 1 must be a buffer, got {a!r}")
            return self._use(self.scalar(scalar, a.dtype))
        raise _error(f"'{op_name}' scalar must be a number, Scalar or Index, got {scalar!r}")

    def adds(self, a: Buffer, scalar: Any, dst: Buffer, **opts: Any) -> Operation:
        """``tile.adds``: ``dst = a + scalar``."""
        return self._tile(T.AddsOp, [a, dst], [self._scalar_operand(a, scalar, "tile.adds")],
                          **opts)

    def subs(self, a: Buffer, scalar: Any, dst: Buffer, **opts: Any) -> Operation:
        """``tile.subs``: ``dst = a - scalar``."""
        return self._tile(T.SubsOp, [a, dst], [self._scalar_operand(a, scalar, "tile.subs")],
                          **opts)

    def muls(self, a: Buffer, scalar: Any, dst: Buffer, **opts: Any) -> Operation:
        """``tile.muls``: ``dst = a * scalar``."""
        return self._tile(T.MulsOp, [a, dst], [self._scalar_operand(a, scalar, "tile.muls")],
                          **opts)

    def maxs(self, a: Buffer, scalar: Any, dst: Buffer, **opts: Any) -> Operation:
        """``tile.maxs``: ``dst = max(a, scalar)``."""
        return self._tile(T.MaxsOp, [a, dst], [self._scalar_operand(a, scalar, "tile.maxs")],
                          **opts)

    # elementwise unary
    def exp(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.exp``: ``dst = exp(a)``."""
        return self._tile(T.ExpOp, [a, dst], **opts)

    def neg(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.neg``: ``dst = -a``."""
        return self._tile(T.NegOp, [a, dst], **opts)

    def abs(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.abs``: ``dst = |a|``."""
        return self._tile(T.AbsOp, [a, dst], **opts)

    def relu(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.relu``: ``dst = max(a, 0)``."""
        return self._tile(T.ReluOp, [a, dst], **opts)

    def cast(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.cast``: ``dst = a`` converted to ``dst``'s element type."""
        return self._tile(T.CastOp, [a, dst], **opts)

    def rsqrt(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rsqrt``: ``dst = 1 / sqrt(a)``."""
        return self._tile(T.RsqrtOp, [a, dst], **opts)

    # rows
    def rowsum(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rowsum``: ``dst[i, 0] = sum_j a[i, j]`` (``dst`` has one column)."""
        return self._tile(T.RowsumOp, [a, dst], **opts)

    def rowmax(self, a: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rowmax``: ``dst[i, 0] = max_j a[i, j]`` (``dst`` has one column)."""
        return self._tile(T.RowmaxOp, [a, dst], **opts)

    def rowexpand_sub(self, a: Buffer, row: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rowexpand_sub``: ``dst[i, j] = a[i, j] - row[i, 0]``."""
        return self._tile(T.RowexpandSubOp, [a, row, dst], **opts)

    def rowexpand_mul(self, a: Buffer, row: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rowexpand_mul``: ``dst[i, j] = a[i, j] * row[i, 0]``."""
        return self._tile(T.RowexpandMulOp, [a, row, dst], **opts)

    def rowexpand_div(self, a: Buffer, row: Buffer, dst: Buffer, **opts: Any) -> Operation:
        """``tile.rowexpand_div``: ``dst[i, j] = a[i, j] / row[i, 0]``."""
        return self._tile(T.RowexpandDivOp, [a, row, dst], **opts)

    # others
    def fill(self, dst: Buffer, value: float | int | Scalar, **opts: Any) -> Operation:
        """``tile.fill``: ``dst = value`` everywhere (a float or int of ``dst``'s dtype, or a
        :class:`Scalar` SSA value)."""
        if not isinstance(dst, Buffer):
            raise _error(f"'tile.fill' destination must be a buffer, got {dst!r}")
        if isinstance(value, Scalar):  # tile.fills: from an SSA scalar
            return self._create_fills(dst, value, **opts)
        if isinstance(dst.dtype, AnyFloat) and isinstance(value, int | float):
            attr: Attribute = FloatAttr(float(value), dst.dtype)
        elif isinstance(dst.dtype, IntegerType) and _is_int(value):
            attr = IntegerAttr(value, dst.dtype)
        else:
            raise _error(f"'tile.fill' value {value!r} does not fit element type {dst.dtype}")
        return self._tile(T.FillOp, [dst], props={"value": attr}, **opts)

    def _create_fills(self, dst: Buffer, value: Scalar, **opts: Any) -> Operation:
        options = self._tile_options("tile.fills", opts.pop("pipe", None), opts.pop("latency", None))
        attributes = {**self._annotations(**_sched(opts, "tile.fills")), **self._fusion_attributes()}
        return self._create(T.FillsOp, [self._use(value), self._buffer(dst, "tile.fills", "operand 2")],
                            options, attributes)

    def call(self, callee: str, *operands: Buffer | Index | Scalar, **opts: Any) -> Operation:
        """``tile.call @callee``: an opaque call with unknown effects (a scheduling barrier)."""
        if not isinstance(callee, str) or not callee:
            raise _error(f"'tile.call' callee must be a non-empty string, got {callee!r}")
        for value in operands:
            if not isinstance(value, _Value):
                raise _error(f"'tile.call' operands must be buffers or values, got {value!r}")
        values = [self._use(v) for v in operands]
        options = self._tile_options("tile.call", opts.pop("pipe", None), opts.pop("latency", None))
        attributes = self._annotations(**_sched(opts, "tile.call"))
        return self._create(T.CallOp, [values], {"callee": StringAttr(callee), **options},
                            attributes)

    def stage_border(self, label: str, priority: int | None = None) -> Operation:
        """``tile.stage_border``: ops before it belong to the warp-pipeline stage it closes."""
        if not isinstance(label, str) or not label:
            raise _error(f"a stage border needs a non-empty label, got {label!r}")
        props: dict[str, Attribute | None] = {"label": StringAttr(label)}
        if priority is not None:
            props["priority"] = IntegerAttr(_non_negative(priority, "priority"), i64)
        return self._create(T.StageBorderOp, [], props, {})


def _sched(opts: dict[str, Any], op_name: str) -> dict[str, Any]:
    """The scheduling keywords (``stage``, ``order``, ``async_``) of ``opts``; nothing else."""
    unknown = set(opts) - {"stage", "order", "async_"}
    if unknown:
        raise _error(f"'{op_name}' got unknown option(s) {', '.join(sorted(unknown))}; valid: "
                     "pipe, latency and core (tile ops), stage, order, async_")
    return {"stage": opts.get("stage"), "order": opts.get("order"),
            "async_": bool(opts.get("async_", False))}
