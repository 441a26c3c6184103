"""Arguments, buffers, views, loops and conditionals of a kernel."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tilesched.ir import tile as T
from tilesched.ir.dsl.kernel_base import _KernelBase
from tilesched.ir.dsl.located import _error, _is_int, _memref_type, _set_name, _valid_name, dtype_of
from tilesched.ir.dsl.values import Buffer, Cond, Index, Scalar


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

    def _view(self, buf: Buffer, offsets: tuple, sizes: tuple, name: str | None,
              valid: tuple = ()) -> Buffer:
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
        if valid and len(valid) != len(sizes):
            raise _error(f"a view's valid region needs {len(sizes)} extents, got {len(valid)}")
        for dim, (extent, size) in enumerate(zip(valid, sizes, strict=False)):
            if _is_int(extent) and not 0 <= extent <= size:
                raise _error(f"valid extent {extent} in dim {dim} is outside 0..{size}")
        values = [self._use(self._index(o, "a view offset")) for o in offsets]
        values += [self._use(self._index(v, "a valid extent")) for v in valid]
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
    def fuse(self) -> Iterator[None]:
        """Ask for one fusion group: tile ops emitted in the block get ``tile.fusion_group`` (a
        new id) and ``tile.fusion_order`` in emission order. ``fuse-tiles`` keeps the group as
        written (it must hold vector compute ops only), splitting it if it cannot be one span."""
        if self._defaults.get("fusion") is not None:
            raise _error("fusion groups do not nest: close the enclosing `with k.fuse():` first")
        group = self._defaults.get("fusion_groups", 0)
        self._defaults["fusion_groups"] = group + 1
        self._defaults["fusion"] = [group, 0]
        try:
            yield
        finally:
            self._defaults["fusion"] = None

    def _fusion_attributes(self) -> dict[str, Attribute]:
        """``tile.fusion_group`` / ``tile.fusion_order`` for an op emitted inside ``fuse()``."""
        current = self._defaults.get("fusion")
        if current is None:
            return {}
        group, order = current
        current[1] += 1
        return {T.FUSION_GROUP: IntegerAttr(group, i64), T.FUSION_ORDER: IntegerAttr(order, i64)}

    @contextlib.contextmanager
    def stage(self, stage: int | str, priority: int | None = None) -> Iterator[None]:
        """``with k.stage(S):`` gives ``tile.stage = S`` to every op in the block that sets none
        itself (software pipelining). ``with k.stage("label", priority=P):`` makes the block's
        ops one warp-pipeline stage: a ``tile.stage_border`` closes it on exit (inside a Python
        loop, consecutive stages form a flat pipeline)."""
        if isinstance(stage, str):
            with self._warp_stage(stage, priority):
                yield
            return
        if priority is not None:
            raise _error("priority= belongs to warp-pipeline stages: k.stage(\"label\", priority=P)")
        self._annotations(stage, None, False)  # validates
        saved = self._defaults.get("stage")
        self._defaults["stage"] = stage
        try:
            yield
        finally:
            self._defaults["stage"] = saved

    @contextlib.contextmanager
    def _warp_stage(self, label: str, priority: int | None) -> Iterator[None]:
        if self._defaults.get("warp_stage") is not None:
            raise _error(f"warp-pipeline stage '{label}' inside stage "
                         f"'{self._defaults['warp_stage']}': stages cannot be nested")
        if not label:
            raise _error("a warp-pipeline stage needs a non-empty label")
        self._defaults["warp_stage"] = label
        try:
            yield
        finally:
            self._defaults["warp_stage"] = None
        self.stage_border(label, priority)
