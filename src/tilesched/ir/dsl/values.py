"""DSL values: thin wrappers over SSA values (buffers, index expressions, conditions, scalars)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilesched.ir.dsl.located import _error, _is_int, _set_name

# --- values ---------------------------------------------------------------------------------


class ValueOwner(Protocol):
    """What values ask of the kernel that made them (implemented by the kernel classes)."""

    def _emit(self, op: Operation, name: str | None = None) -> SSAValue | None: ...
    def _use(self, value: _Value) -> SSAValue: ...
    def _index(self, value: Any, what: str) -> Index: ...
    def _index_op(self, op: type[Operation], lhs: Index, rhs: Index) -> Index: ...
    def _true(self) -> Cond: ...
    def cmp(self, predicate: str, lhs: int | Index, rhs: int | Index) -> Cond: ...
    def _view(self, buf: Buffer, offsets: tuple, sizes: tuple, name: str | None,
              valid: tuple = ()) -> Buffer: ...
    def _slot(self, buf: Buffer, k: int | Index, name: str | None) -> Buffer: ...


class _Value:
    """An SSA value owned by one kernel."""

    def __init__(self, kernel: ValueOwner, value: SSAValue):
        self.kernel = kernel
        self.value = value

    def __bool__(self) -> bool:
        raise _error(
            f"{type(self).__name__} values exist only in the generated program; use k.if_(...) "
            "for a conditional and k.range(...) for a loop instead of Python control flow"
        )

    __hash__ = object.__hash__

    def named(self, name: str) -> _Value:
        """Give the value a name in the printed IR (``%name``); returns the value itself."""
        _set_name(self.value, name)
        return self

    def __repr__(self) -> str:
        name = f"%{self.value.name_hint}" if self.value.name_hint else "(unnamed)"
        owner = self.value.owner
        in_loop = isinstance(owner, Block) and isinstance(owner.parent_op(), scf.ForOp)
        kind = "loop variable" if in_loop else type(self).__name__.lower()
        return f"{kind} {name} : {self.value.type}"


class Index(_Value):
    """An ``index`` value; arithmetic emits ``arith`` ops (constants fold in Python)."""

    @property
    def constant(self) -> int | None:
        """The value, when this index is an ``arith.constant``."""
        owner = self.value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
        return None

    def _binary(self, op: type[Operation], other: Any, swap: bool = False) -> Index:
        rhs = self.kernel._index(other, f"the other operand of {op.name}")
        lhs, rhs = (rhs, self) if swap else (self, rhs)
        return self.kernel._index_op(op, lhs, rhs)

    def __add__(self, other: Any) -> Index:
        return self._binary(arith.AddiOp, other)

    def __radd__(self, other: Any) -> Index:
        return self._binary(arith.AddiOp, other, swap=True)

    def __sub__(self, other: Any) -> Index:
        return self._binary(arith.SubiOp, other)

    def __rsub__(self, other: Any) -> Index:
        return self._binary(arith.SubiOp, other, swap=True)

    def __mul__(self, other: Any) -> Index:
        return self._binary(arith.MuliOp, other)

    def __rmul__(self, other: Any) -> Index:
        return self._binary(arith.MuliOp, other, swap=True)

    def __mod__(self, other: Any) -> Index:
        return self._binary(arith.RemSIOp, self._positive(other, "%"))

    def __floordiv__(self, other: Any) -> Index:
        return self._binary(arith.FloorDivSIOp, self._positive(other, "//"))

    def _positive(self, other: Any, what: str) -> int:
        if not _is_int(other) or other <= 0:
            raise _error(f"index '{what}' needs a positive Python int on the right, got {other!r}")
        return other

    __hash__ = _Value.__hash__

    def _compare(self, predicate: str, other: Any) -> Cond:
        return self.kernel.cmp(predicate, self, other)

    def __eq__(self, other: Any) -> Cond:  # type: ignore[override]
        return self._compare("eq", other)

    def __ne__(self, other: Any) -> Cond:  # type: ignore[override]
        return self._compare("ne", other)

    def __lt__(self, other: Any) -> Cond:
        return self._compare("slt", other)

    def __le__(self, other: Any) -> Cond:
        return self._compare("sle", other)

    def __gt__(self, other: Any) -> Cond:
        return self._compare("sgt", other)

    def __ge__(self, other: Any) -> Cond:
        return self._compare("sge", other)


class Cond(_Value):
    """An ``i1`` condition for :meth:`Kernel.if_`; combine with ``&``, ``|`` and ``~``."""

    def _logic(self, op: type[Operation], other: Any) -> Cond:
        if not isinstance(other, Cond):
            raise _error(f"'{op.name}' combines two conditions, got {other!r}")
        kernel = self.kernel
        return Cond(kernel, kernel._emit(op(kernel._use(self), kernel._use(other))))

    def __and__(self, other: Any) -> Cond:
        return self._logic(arith.AndIOp, other)

    def __or__(self, other: Any) -> Cond:
        return self._logic(arith.OrIOp, other)

    def __invert__(self) -> Cond:
        return self._logic(arith.XOrIOp, self.kernel._true())


class Scalar(_Value):
    """A scalar (float or integer) operand, e.g. the factor of ``tile.muls``."""


class Buffer(_Value):
    """A memref: a function argument, an allocation, or a view or slot of one."""

    @property
    def type(self) -> MemRefType:
        return self.value.type  # type: ignore[return-value]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.type.get_shape())

    @property
    def dtype(self) -> Attribute:
        return self.type.element_type

    @property
    def space(self) -> str:
        space = self.type.memory_space
        return space.data if isinstance(space, StringAttr) else str(space)

    def view(self, offsets: Sequence[int | Index], sizes: Sequence[int], name: str | None = None,
             valid: Sequence[int | Index] = ()) -> Buffer:
        """``tile.view``: the window of shape ``sizes`` at element ``offsets`` (ints or indices);
        ``valid``: one extent per dimension, the window's valid region (docs/ir.md)."""
        return self.kernel._view(self, tuple(offsets), tuple(sizes), name, tuple(valid))

    def block(self, sizes: Sequence[int], indices: Sequence[int | Index], name: str | None = None
              ) -> Buffer:
        """The ``indices``-th block of shape ``sizes``: a view at offsets ``index * size``."""
        sizes, indices = tuple(sizes), tuple(indices)
        if len(sizes) != len(indices):
            raise _error(f"block() needs one index per size, got {len(indices)} for {len(sizes)}")
        return self.view([i * s for i, s in zip(indices, sizes, strict=True)], sizes, name)

    def slot(self, k: int | Index, name: str | None = None) -> Buffer:
        """``tile.slot``: multi-buffer version ``k`` (the ``k``-th slice along dim 0)."""
        return self.kernel._slot(self, k, name)
