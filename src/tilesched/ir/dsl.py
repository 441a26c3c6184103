"""A Python DSL that builds tile programs: the same IR as hand-written ``.mlir`` (DESIGN.md §2).

A :class:`Kernel` is a ``func.func`` under construction. Its methods append ops at
the current insertion point, using xDSL's :class:`~xdsl.builder.Builder`::

    k = Kernel("scale", target="ascend-a2")
    x = k.arg("x", (256, 128), "f16", "GM")
    ub = k.alloc((64, 128), "f16", "UB", name="x_ub")
    for i in k.range(0, 4, name="i"):
        k.load(x.view((i * 64, 0), (64, 128)), ub, stage=0)
        k.muls(ub, 0.5, ub, stage=1)
        k.store(ub, x.view((i * 64, 0), (64, 128)), stage=2)
    module = k.module()             # a verified builtin.module
    print(print_module(module))

Values are thin wrappers over SSA values: a :class:`Buffer` (function argument,
``memref.alloc``, ``tile.view`` or ``tile.slot``), an :class:`Index` (loop variable,
index argument, constant or ``arith`` expression: ``+``, ``-``, ``*``, ``%`` and ``//``
by an integer), a :class:`Cond` (an ``i1`` from ``arith.cmpi``; ``&``, ``|``, ``~``)
and a :class:`Scalar` (a float or integer operand of ``tile.adds`` and friends).

Loops are Python ``for`` statements over :meth:`Kernel.range`: the body runs once in
Python and emits the body of an ``scf.for``. Conditionals are ``with k.if_(cond):``
optionally followed by ``with k.else_():``. Constants are created once per kernel and
hoisted to the top of the function.

Every mistake (wrong shapes, a buffer where an index belongs, a loop variable used
outside its loop, an unknown dtype) raises :class:`~tilesched.diagnostics.TileschedError`
located at the Python line that made it; each op also records that line as its
location, so the verifier's target checks (``Kernel.module``) point there too.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from tilesched.diagnostics import Location, TileschedError
from tilesched.ir import sync as S
from tilesched.ir import tile as T
from tilesched.ir.text import print_module
from tilesched.ir.verify import verify_module
from tilesched.target.loader import load_target
from tilesched.target.model import Target

__all__ = ["Buffer", "Cond", "Index", "Kernel", "Module", "Scalar", "dtype_of", "render"]

DTYPES: dict[str, Attribute] = {
    "f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type(),
    "i1": IntegerType(1), "i8": IntegerType(8), "i16": IntegerType(16),
    "i32": IntegerType(32), "i64": IntegerType(64),
}

_SKIPPED_FILES = {__file__, contextlib.__file__}


# --- locations and errors ------------------------------------------------------------------


def _caller_location() -> Location | None:
    """``file:line:col`` of the innermost frame outside this module (the kernel author's line)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in _SKIPPED_FILES:
        frame = frame.f_back
    if frame is None:
        return None
    position = next(itertools.islice(frame.f_code.co_positions(), frame.f_lasti // 2, None), None)
    column = position[2] + 1 if position is not None and position[2] is not None else 1
    return Location(frame.f_code.co_filename, frame.f_lineno, column)


def _error(message: str) -> TileschedError:
    """A DSL usage error located at the caller's line."""
    return TileschedError(message, _caller_location())


def _file_loc(loc: Location | None) -> FileLineColLoc | None:
    if loc is None:
        return None
    return FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.column))


# --- types ----------------------------------------------------------------------------------


def dtype_of(dtype: str | Attribute) -> Attribute:
    """The xDSL element type for ``"f16"``, ``"f32"``, ``"i8"``, ... (or a type passed through)."""
    if isinstance(dtype, Attribute):
        return dtype
    if dtype not in DTYPES:
        raise _error(f"unknown dtype '{dtype}'; valid dtypes: {', '.join(DTYPES)}")
    return DTYPES[dtype]


def _memref_type(shape: Sequence[int], dtype: str | Attribute, space: str) -> MemRefType:
    """``memref<SHAPE x DTYPE, "SPACE">`` after checking the shape and the space name."""
    shape = tuple(shape)
    if not shape or not all(_is_int(d) and d > 0 for d in shape):
        raise _error(f"a buffer shape must be a non-empty tuple of positive ints, got {shape!r}")
    if not isinstance(space, str) or not space:
        raise _error(f"a memory space must be a non-empty string such as \"UB\", got {space!r}")
    return MemRefType(dtype_of(dtype), shape, memory_space=StringAttr(space))


def _valid_name(name: Any) -> str:
    """``name`` if it can name an SSA value (``%name``), else a located error."""
    try:
        valid = isinstance(name, str) and SSAValue.extract_valid_name(name) == name
    except ValueError:
        valid = False
    if not valid:
        raise _error(f"{name!r} is not a valid value name (letters, digits, _ $ . -; not starting "
                     "with a digit)")
    return name


def _set_name(value: SSAValue, name: str) -> None:
    """Name ``value`` ``%name`` in the printed IR."""
    value.name_hint = _valid_name(name)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- values ---------------------------------------------------------------------------------


class _Value:
    """An SSA value owned by one kernel."""

    def __init__(self, kernel: Kernel, value: SSAValue):
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

    def view(self, offsets: Sequence[int | Index], sizes: Sequence[int], name: str | None = None
             ) -> Buffer:
        """``tile.view``: the window of shape ``sizes`` at element ``offsets`` (ints or indices)."""
        return self.kernel._view(self, tuple(offsets), tuple(sizes), name)

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


# --- module and kernels ------------------------------------------------------------------------


class Module:
    """A ``builtin.module`` holding one or more kernels, verified against an optional target."""

    def __init__(self, target: str | Target | None = None):
        self.op = ModuleOp([])
        self.target = load_target(target) if isinstance(target, str) else target

    def kernel(self, name: str) -> Kernel:
        """Start a new ``func.func @name`` in this module."""
        return Kernel(name, module=self)

    def build(self) -> ModuleOp:
        """Verify (structure, then the target's rules when one was given) and return the module."""
        verify_module(self.op, self.target)
        return self.op

    def text(self, generic: bool = False) -> str:
        """The verified module as MLIR text."""
        return print_module(self.build(), generic=generic)


class _KernelBase:
    """Insertion points, constants, value checks and op creation shared by the op families."""

    def __init__(self, name: str, target: str | Target | None = None, module: Module | None = None):
        if not isinstance(name, str) or not name.isidentifier():
            raise _error(f"a kernel name must be an identifier, got {name!r}")
        if module is not None and target is not None:
            raise _error("give the target to the Module, not to a kernel inside it")
        self._module = module or Module(target)
        self.name = name
        ret = func.ReturnOp()
        self._entry = Block([ret])
        self._func = func.FuncOp(name, ((), ()), Region(self._entry))
        self._func.location = _file_loc(_caller_location())
        self._module.op.body.block.add_op(self._func)
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


class _Structure(_KernelBase):
    """Arguments, buffers, views, loops and conditionals."""

    def arg(self, name: str, shape: Sequence[int], dtype: str | Attribute, space: str) -> Buffer:
        """A memref function argument ``%name: memref<SHAPE x DTYPE, "SPACE">``."""
        return Buffer(self, self._add_arg(name, _memref_type(shape, dtype, space)))

    def index_arg(self, name: str) -> Index:
        """An ``index`` function argument (a runtime loop bound, a block number, ...)."""
        return Index(self, self._add_arg(name, IndexType()))

    def scalar_arg(self, name: str, dtype: str | Attribute) -> Scalar:
        """A scalar function argument (e.g. a softmax scale)."""
        return Scalar(self, self._add_arg(name, dtype_of(dtype)))

    def _add_arg(self, name: str, type_: Attribute) -> SSAValue:
        """Append a function argument and update the function type."""
        _valid_name(name)
        if any(a.name_hint == name for a in self._entry.args):
            raise _error(f"kernel '{self.name}' already has an argument named '{name}'")
        arg = self._entry.insert_arg(type_, len(self._entry.args))
        _set_name(arg, name)
        self._func.update_function_type()
        return arg

    def alloc(self, shape: Sequence[int], dtype: str | Attribute, space: str,
              name: str | None = None) -> Buffer:
        """``memref.alloc() : memref<SHAPE x DTYPE, "SPACE">``, a buffer in a local space."""
        op = memref.AllocOp([], [], _memref_type(shape, dtype, space))
        return Buffer(self, self._emit(op, name))

    def _view(self, buf: Buffer, offsets: tuple, sizes: tuple, name: str | None) -> Buffer:
        source = self._buffer(buf, "tile.view", "source")
        if len(offsets) != len(buf.shape) or len(sizes) != len(buf.shape):
            raise _error(f"view of a {len(buf.shape)}-d buffer needs {len(buf.shape)} offsets and "
                         f"sizes, got {len(offsets)} offsets and {len(sizes)} sizes")
        for dim, (off, size, extent) in enumerate(zip(offsets, sizes, buf.shape, strict=True)):
            if not _is_int(size) or size <= 0 or size > extent:
                raise _error(f"view size {size!r} in dim {dim} must be an int in 1..{extent}")
            if _is_int(off) and not 0 <= off <= extent - size:
                raise _error(f"view [{off}, {off + size}) in dim {dim} is out of bounds "
                             f"0..{extent}")
        values = [self._use(self._index(o, "a view offset")) for o in offsets]
        result = MemRefType(buf.dtype, sizes, memory_space=buf.type.memory_space)
        props = {"sizes": DenseArrayBase.from_list(i64, sizes)}
        op = self._create(T.ViewOp, [source, values], props, {}, result, name)
        return Buffer(self, op.results[0])

    def _slot(self, buf: Buffer, k: int | Index, name: str | None) -> Buffer:
        source = self._buffer(buf, "tile.slot", "source")
        if len(buf.shape) < 2:
            raise _error(f"slot() needs a buffer with a leading slot dimension, got {buf.type}")
        if _is_int(k) and not 0 <= k < buf.shape[0]:
            raise _error(f"slot {k} is out of range: the buffer has {buf.shape[0]} slots")
        index = self._use(self._index(k, "a slot index"))
        result = MemRefType(buf.dtype, buf.shape[1:], memory_space=buf.type.memory_space)
        op = self._create(T.SlotOp, [source, index], {}, {}, result, name)
        return Buffer(self, op.results[0])

    def range(self, start: int | Index, stop: int | Index | None = None, step: int | Index = 1,
              *, name: str | None = None, stage: int | None = None, order: int | None = None,
              async_stages: Sequence[int] | None = None) -> Iterator[Index]:
        """``scf.for`` over ``index``; yields the induction variable once while the body is built.

        ``range(stop)`` counts from 0, like Python's. ``async_stages`` sets the loop's
        ``tile.async_stages``; ``stage``/``order`` annotate the loop op itself (when it is
        nested in a pipelined loop).
        """
        if stop is None:
            start, stop = 0, start
        if _is_int(step) and step <= 0:
            raise _error(f"a loop step must be positive, got {step}")
        bounds = [self._use(self._index(v, f"loop {what}"))
                  for v, what in ((start, "start"), (stop, "stop"), (step, "step"))]
        attrs = self._annotations(stage, order, False)
        if async_stages is not None:
            attrs[T.ASYNC_STAGES] = ArrayAttr([IntegerAttr(s, i64) for s in
                                               self._stage_list(async_stages)])
        body = Block(arg_types=[IndexType()])
        if name is not None:
            _set_name(body.args[0], name)
        loop = scf.ForOp(*bounds, [], body)
        loop.attributes.update(attrs)
        self._emit(loop)
        terminator = scf.YieldOp()
        body.add_op(terminator)
        return self._loop_body(terminator, Index(self, body.args[0]))

    def _loop_body(self, terminator: Operation, iv: Index) -> Iterator[Index]:
        with self._inside(terminator):
            yield iv

    @staticmethod
    def _stage_list(stages: Sequence[int]) -> list[int]:
        stages = list(stages)
        if not all(_is_int(s) and s >= 0 for s in stages):
            raise _error(f"async_stages must be non-negative ints, got {stages!r}")
        return stages

    @contextlib.contextmanager
    def if_(self, cond: Cond, *, stage: int | None = None, order: int | None = None
            ) -> Iterator[None]:
        """``scf.if``: ops emitted inside the ``with`` block form the then-branch."""
        if not isinstance(cond, Cond):
            raise _error(f"if_() needs a condition such as `i == 0`, got {cond!r}")
        terminator = scf.YieldOp()
        op = scf.IfOp(self._use(cond), [], Region(Block([terminator])))
        op.attributes.update(self._annotations(stage, order, False))
        self._emit(op)
        with self._inside(terminator):
            yield

    @contextlib.contextmanager
    def else_(self) -> Iterator[None]:
        """The else-branch of the ``scf.if`` emitted just before (``with k.else_():``)."""
        point = self._builder.insertion_point
        before = point.insert_before
        previous = before.prev_op if before is not None else point.block.last_op
        if not isinstance(previous, scf.IfOp) or previous.false_region.blocks:
            raise _error("else_() must directly follow a `with k.if_(...)` block without an else")
        terminator = scf.YieldOp()
        previous.false_region.add_block(Block([terminator]))
        with self._inside(terminator):
            yield

    @contextlib.contextmanager
    def stage(self, stage: int) -> Iterator[None]:
        """Give ``tile.stage = stage`` to every op emitted in the block that sets none itself."""
        self._annotations(stage, None, False)  # validates
        saved = self._defaults.get("stage")
        self._defaults["stage"] = stage
        try:
            yield
        finally:
            self._defaults["stage"] = saved


class _TileOps(_Structure):
    """One method per tile op of DESIGN.md §2; each writes its last buffer argument.

    Every method takes the keyword options ``pipe`` (unit override), ``latency``
    (cycles), ``stage``, ``order`` and ``async_`` (software-pipelining annotations)
    and returns the created op.
    """

    def _tile(self, op_type: type[Operation], buffers: Sequence[Any],
              scalars: Sequence[SSAValue] = (), props: dict[str, Attribute] | None = None,
              **opts: Any) -> Operation:
        """Create a tile op: buffer operands (last one written), then options and annotations."""
        name = op_type.name
        values = [self._buffer(b, name, f"operand {i + 1}") for i, b in enumerate(buffers)]
        operands = values[:1] + list(scalars) + values[1:] if scalars else values
        options = self._tile_options(name, opts.pop("pipe", None), opts.pop("latency", None))
        attributes = self._annotations(**_sched(opts, name))
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
    def fill(self, dst: Buffer, value: float | int, **opts: Any) -> Operation:
        """``tile.fill``: ``dst = value`` everywhere (a float or int of ``dst``'s dtype)."""
        if not isinstance(dst, Buffer):
            raise _error(f"'tile.fill' destination must be a buffer, got {dst!r}")
        if isinstance(dst.dtype, AnyFloat) and isinstance(value, int | float):
            attr: Attribute = FloatAttr(float(value), dst.dtype)
        elif isinstance(dst.dtype, IntegerType) and _is_int(value):
            attr = IntegerAttr(value, dst.dtype)
        else:
            raise _error(f"'tile.fill' value {value!r} does not fit element type {dst.dtype}")
        return self._tile(T.FillOp, [dst], props={"value": attr}, **opts)

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
                     "pipe and latency (tile ops), stage, order, async_")
    return {"stage": opts.get("stage"), "order": opts.get("order"),
            "async_": bool(opts.get("async_", False))}


def _non_negative(value: Any, what: str) -> int:
    if not _is_int(value) or value < 0:
        raise _error(f"{what} must be a non-negative int, got {value!r}")
    return value


class _SyncOps(_TileOps):
    """One method per sync op of DESIGN.md §2 (for examples that need explicit synchronization)."""

    def _sync(self, op_type: type[Operation], props: dict[str, Attribute],
              operands: Sequence[list[SSAValue]] = (), **opts: Any) -> Operation:
        attributes = self._annotations(**_sched(opts, op_type.name))
        return self._create(op_type, operands, props, attributes)

    def set_flag(self, src: str, dst: str, event: int, **opts: Any) -> Operation:
        """``sync.set_flag``: set event ``(src, dst, event)`` once earlier ``src`` ops are done."""
        return self._sync(S.SetFlagOp, _flag_props(src, dst, event), **opts)

    def wait_flag(self, src: str, dst: str, event: int, **opts: Any) -> Operation:
        """``sync.wait_flag``: unit ``dst`` waits for event ``(src, dst, event)`` and clears it."""
        return self._sync(S.WaitFlagOp, _flag_props(src, dst, event), **opts)

    def pipe_barrier(self, pipe: str, **opts: Any) -> Operation:
        """``sync.pipe_barrier``: later ops on ``pipe`` wait for earlier ones."""
        return self._sync(S.PipeBarrierOp, {"pipe": _unit_name(pipe, "pipe")}, **opts)

    def barrier_all(self, **opts: Any) -> Operation:
        """``sync.barrier_all``: the issuer waits until every unit is idle."""
        return self._sync(S.BarrierAllOp, {}, **opts)

    def commit_group(self, queue: int = 0, **opts: Any) -> Operation:
        """``sync.commit_group``: close the open group of async ops on ``queue``."""
        props = {"queue": IntegerAttr(_non_negative(queue, "queue"), i64)}
        return self._sync(S.CommitGroupOp, props, **opts)

    def wait_group(self, queue: int = 0, pending: int | Index = 0, **opts: Any) -> Operation:
        """``sync.wait_group``: wait until at most ``pending`` groups of ``queue`` are incomplete.

        ``pending`` is a Python int (a property) or an index value (an operand).
        """
        props = {"queue": IntegerAttr(_non_negative(queue, "queue"), i64)}
        if isinstance(pending, Index):
            return self._sync(S.WaitGroupOp, props, [[self._use(pending)]], **opts)
        props["pending"] = IntegerAttr(_non_negative(pending, "pending"), i64)
        return self._sync(S.WaitGroupOp, props, [[]], **opts)

    def barrier(self, local: bool = False, **opts: Any) -> Operation:
        """``sync.barrier``: rendezvous of all issuer groups (``local`` completes LDS ops first)."""
        return self._sync(S.BarrierOp, {"local": UnitAttr()} if local else {}, **opts)

    def cond_barrier(self, group: str, local: bool = False, **opts: Any) -> Operation:
        """``sync.cond_barrier``: a barrier executed only by issuer group ``group``."""
        if group not in ("high", "low"):
            raise _error(f"cond_barrier group must be \"high\" or \"low\", got {group!r}")
        props: dict[str, Attribute] = {"group": StringAttr(group)}
        if local:
            props["local"] = UnitAttr()
        return self._sync(S.CondBarrierOp, props, **opts)

    def setprio(self, priority: int, **opts: Any) -> Operation:
        """``sync.setprio``: issuer priority hint."""
        props = {"priority": IntegerAttr(_non_negative(priority, "priority"), i64)}
        return self._sync(S.SetPrioOp, props, **opts)

    def sched_barrier(self, **opts: Any) -> Operation:
        """``sync.sched_barrier``: nothing may be moved across it."""
        return self._sync(S.SchedBarrierOp, {}, **opts)


def _unit_name(unit: Any, role: str) -> StringAttr:
    if not isinstance(unit, str) or not unit:
        raise _error(f"{role} must be a unit name such as \"MTE2\", got {unit!r}")
    return StringAttr(unit)


def _flag_props(src: str, dst: str, event: int) -> dict[str, Attribute]:
    return {"src": _unit_name(src, "src"), "dst": _unit_name(dst, "dst"),
            "event": IntegerAttr(_non_negative(event, "event"), i64)}


class Kernel(_SyncOps):
    """A ``func.func`` being built; see the module docstring for a walk-through.

    ``Kernel(name, target=...)`` makes a module of its own; ``Module(target).kernel(name)``
    adds several kernels to one module.
    """

    def module(self) -> ModuleOp:
        """The verified ``builtin.module`` holding this kernel."""
        return self._module.build()

    def text(self, generic: bool = False) -> str:
        """The verified module as MLIR text."""
        return self._module.text(generic)


def render(module: ModuleOp, comment: str | None = None) -> str:
    """MLIR text of ``module`` after ``comment`` as ``//`` lines (e.g. an example's docstring)."""
    header = ""
    if comment:
        lines = comment.strip("\n").splitlines()
        header = "".join(f"// {line}".rstrip() + "\n" for line in lines)
    return header + print_module(module)
