"""The kernel core: insertion points, constants, value checks, op creation."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from tilesched.ir import tile as T
from tilesched.ir.dsl.located import (
    _caller_location,
    _error,
    _file_loc,
    _is_int,
    _set_name,
    _valid_name,
    dtype_of,
)
from tilesched.ir.dsl.values import Buffer, Cond, Index, Scalar, _Value

if TYPE_CHECKING:
    pass


# --- module and kernels ------------------------------------------------------------------------


class _KernelBase:
    """Insertion points, constants, value checks and op creation shared by the op families."""

    def __init__(self, name: str, module_op: ModuleOp):
        if not isinstance(name, str) or not name.isidentifier():
            raise _error(f"a kernel name must be an identifier, got {name!r}")
        self.name = name
        ret = func.ReturnOp()
        self._entry = Block([ret])
        self._func = func.FuncOp(name, ((), ()), Region(self._entry))
        self._func.location = _file_loc(_caller_location())
        module_op.body.block.add_op(self._func)
        self._builders = [Builder(InsertPoint.before(ret))]
        self._constants: dict[tuple[str, Any], SSAValue] = {}
        self._last_constant: Operation | None = None
        self._defaults: dict[str, Any] = {}

    # -- insertion ---------------------------------------------------------------------------

    @property
    def _builder(self) -> Builder:
        return self._builders[-1]

    def _emit(self, op: Operation, name: str | None = None) -> SSAValue | None:
        """Insert ``op`` at the current point, located at the caller's line; return its result."""
        if name is not None:
            _valid_name(name)
        op.location = _file_loc(_caller_location())
        self._builder.insert(op)
        if op.results and name is not None:
            _set_name(op.results[0], name)
        return op.results[0] if op.results else None

    @contextlib.contextmanager
    def _inside(self, terminator: Operation) -> Iterator[None]:
        """Emit into the block that ``terminator`` ends, then come back."""
        depth = len(self._builders)
        self._builders.append(Builder(InsertPoint.before(terminator)))
        try:
            yield
        finally:
            del self._builders[depth:]

    def _visible(self, value: SSAValue) -> bool:
        """True when ``value`` is defined in the current block or one enclosing it."""
        owner = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
        block: Block | None = self._builder.insertion_point.block
        while block is not None:
            if block is owner:
                return True
            parent = block.parent_op()
            block = parent.parent_block() if parent is not None else None
        return False

    def _use(self, value: _Value) -> SSAValue:
        """The SSA value of ``value`` after checking it belongs here and is in scope."""
        if value.kernel is not self:
            raise _error(f"{value!r} belongs to kernel '{value.kernel.name}', not '{self.name}'")
        if not self._visible(value.value):
            raise _error(f"{value!r} is used outside the loop or branch that defines it")
        return value.value

    # -- constants and indices ---------------------------------------------------------------

    def _constant(self, attr: IntegerAttr | FloatAttr, name: str) -> SSAValue:
        """One ``arith.constant`` per value and type, hoisted to the top of the function."""
        key = (str(attr.type), attr.value.data)
        if key not in self._constants:
            op = arith.ConstantOp(attr)
            op.location = self._func.location
            point = (InsertPoint.after(self._last_constant) if self._last_constant is not None
                     else InsertPoint.at_start(self._entry))
            Builder(point).insert(op)
            op.result.name_hint = name
            self._last_constant = op
            self._constants[key] = op.result
        return self._constants[key]

    def const(self, value: int) -> Index:
        """An index constant."""
        if not _is_int(value):
            raise _error(f"an index constant must be a Python int, got {value!r}")
        name = f"c{value}" if value >= 0 else f"c_m{-value}"
        return Index(self, self._constant(IntegerAttr(value, IndexType()), name))

    def scalar(self, value: float | int, dtype: str | Attribute) -> Scalar:
        """A scalar constant of ``dtype`` (``arith.constant 5.0e-01 : f32``)."""
        element = dtype_of(dtype)
        if isinstance(element, AnyFloat):
            return Scalar(self, self._constant(FloatAttr(float(value), element), "cst"))
        if isinstance(element, IntegerType) and _is_int(value):
            return Scalar(self, self._constant(IntegerAttr(value, element), "cst"))
        raise _error(f"cannot make a {element} constant from {value!r}")

    def _true(self) -> Cond:
        return Cond(self, self._constant(IntegerAttr(1, i1), "true"))

    def _index(self, value: Any, what: str) -> Index:
        """``value`` as an index of this kernel (Python ints become constants)."""
        if isinstance(value, Index):
            self._use(value)
            return value
        if _is_int(value):
            return self.const(value)
        raise _error(f"{what} must be an int or an index value, got {value!r}")

    def _index_op(self, op: type[Operation], lhs: Index, rhs: Index) -> Index:
        """Emit ``lhs op rhs``, folding constants and the identities ``x + 0``, ``x * 1``."""
        a, b = lhs.constant, rhs.constant
        if a is not None and b is not None:
            return self.const(_fold(op, a, b))
        if op in (arith.AddiOp, arith.SubiOp) and b == 0:
            return lhs
        if op is arith.AddiOp and a == 0:
            return rhs
        if op is arith.MuliOp and (a == 0 or b == 0):
            return self.const(0)
        if op is arith.MuliOp and (a == 1 or b == 1):
            return rhs if a == 1 else lhs
        return Index(self, self._emit(op(self._use(lhs), self._use(rhs))))

    def cmp(self, predicate: str, lhs: int | Index, rhs: int | Index) -> Cond:
        """``arith.cmpi PREDICATE`` on two indices (``eq``, ``ne``, ``slt``, ``ule``, ...)."""
        if predicate not in arith.CMPI_COMPARISON_OPERATIONS:
            raise _error(f"unknown comparison '{predicate}'; valid: "
                         + ", ".join(arith.CMPI_COMPARISON_OPERATIONS))
        a, b = self._index(lhs, "a comparison operand"), self._index(rhs, "a comparison operand")
        return Cond(self, self._emit(arith.CmpiOp(self._use(a), self._use(b), predicate)))

    # -- op creation ---------------------------------------------------------------------------

    def _buffer(self, value: Any, op_name: str, role: str) -> SSAValue:
        if not isinstance(value, Buffer):
            raise _error(f"'{op_name}' {role} must be a buffer (k.arg, k.alloc, view or slot), "
                         f"got {value!r}")
        return self._use(value)

    def _annotations(self, stage: int | None, order: int | None, async_: bool
                     ) -> dict[str, Attribute]:
        """Discardable scheduling attributes (``tile.stage``, ``tile.order``, ``tile.async``)."""
        stage = self._defaults.get("stage") if stage is None else stage
        attrs: dict[str, Attribute] = {}
        for key, value in ((T.STAGE, stage), (T.ORDER, order)):
            if value is not None:
                if not _is_int(value) or value < 0:
                    raise _error(f"{key} must be a non-negative int, got {value!r}")
                attrs[key] = IntegerAttr(value, i64)
        if async_:
            attrs[T.ASYNC] = UnitAttr()
        return attrs

    def _create(self, op_type: type[Operation], operands: Sequence[SSAValue | list[SSAValue]],
                properties: dict[str, Attribute | None], attributes: dict[str, Attribute],
                result: Attribute | None = None, name: str | None = None) -> Operation:
        """Build, verify (errors at the caller's line) and insert one op.

        ``operands`` follow the op's definition: a list for each variadic or optional operand.
        """
        op = op_type.build(operands=list(operands),
                           properties={k: v for k, v in properties.items() if v is not None},
                           attributes=attributes,
                           result_types=[result] if result is not None else [])
        try:
            op.verify()
        except VerifyException as err:
            raise _error(" ".join(str(err).split())) from None
        self._emit(op, name)
        return op

    def _tile_options(self, op_name: str, pipe: str | None, latency: int | None
                      ) -> dict[str, Attribute | None]:
        """The optional ``pipe`` and ``latency`` properties every tile op accepts."""
        if pipe is not None and (not isinstance(pipe, str) or not pipe):
            raise _error(f"'{op_name}' pipe must be a unit name such as \"V\", got {pipe!r}")
        if latency is not None and (not _is_int(latency) or latency < 0):
            raise _error(f"'{op_name}' latency must be a non-negative int, got {latency!r}")
        return {"pipe": StringAttr(pipe) if pipe is not None else None,
                "latency": IntegerAttr(latency, i64) if latency is not None else None}


def _fold(op: type[Operation], a: int, b: int) -> int:
    """Python value of an index op on two constants."""
    if op is arith.AddiOp:
        return a + b
    if op is arith.SubiOp:
        return a - b
    if op is arith.MuliOp:
        return a * b
    if op is arith.RemSIOp:
        return a - b * int(a / b)  # C remainder, as arith.remsi
    return a // b
