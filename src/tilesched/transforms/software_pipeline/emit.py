"""Emit the code of a software-pipelined loop (prologue, kernel ``scf.for``, epilogue).

:class:`PipelineEmitter` turns a :class:`~tilesched.schedule.pipeline.waits.Plan`
into ops inserted before the original loop. Each op item is a clone of a staged
body op for one iteration ``j``: its induction value becomes ``lb + j * step``,
the pure ops it uses (index math, views) are cloned next to it once per block
and iteration, and every multi-buffered buffer becomes ``tile.slot %buf[j mod N]``.
Index math on constants is folded, so a conditional on ``iv == 0`` in the
prologue keeps only its taken branch.

Iterations are written three ways (:class:`IterCtx`): absolute numbers
(prologue, static epilogue), offsets from the kernel loop's counter (the kernel
iterates over the last stage's iteration, like MLIR's and TVM's pipeliners), and
offsets from the trip count ``T`` (epilogue of a dynamic loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, SSAValue

from tilesched.ir.affine import constant_value
from tilesched.ir.sync import make_commit, make_wait_group
from tilesched.ir.tile import SlotOp
from tilesched.schedule.pipeline.waits import COMMIT, OP, WAIT, Item, Template
from tilesched.transforms.software_pipeline.annotations import ANNOTATIONS, is_pure
from tilesched.transforms.software_pipeline.index import IndexMath, constants_before


@dataclass
class MultiBuffer:
    """A buffer given ``slots`` versions: ``alloc`` is the new ``memref<slots x ...>``."""

    alloc: SSAValue
    slots: int


@dataclass(frozen=True)
class IterCtx:
    """How op items name their iteration: ``abs`` numbers, ``kernel`` offsets from the
    kernel loop counter, ``trip`` offsets from the trip count ``counter``. ``period``: the
    counter's iteration number is a multiple of it (an unrolled kernel), so slots whose
    count divides it have constant indices."""

    kind: str
    counter: SSAValue | None = None
    period: int = 1


@dataclass
class LoopBounds:
    """The original loop's bounds (SSA values, and their constants when known)."""

    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    iv: SSAValue

    def constant(self, which: str) -> int | None:
        """The constant value of ``lb``, ``ub`` or ``step``, if it is one."""
        return constant_value(getattr(self, which))

    @property
    def unit_step(self) -> bool:
        """Is the step the constant 1?"""
        return self.constant("step") == 1


class PipelineEmitter:
    """Builds the pipelined code of one loop (see the module docstring)."""

    def __init__(self, loop: scf.ForOp, staged: list[Operation], template: Template,
                 buffers: dict[SSAValue, MultiBuffer]):
        self.loop = loop
        self.body = loop.body.block
        self.staged = staged
        self.template = template
        self.buffers = buffers
        self.bounds = LoopBounds(loop.lb, loop.ub, loop.step, self.body.args[0])
        self.constants: list[Operation] = []
        self.math = IndexMath(self.constants)
        self.scopes: dict[tuple[int, str, int], dict[SSAValue, SSAValue]] = {}
        self.math.seed(constants_before(loop))

    # ------------------------------------------------------------------ iterations

    def _lb(self) -> int | SSAValue:
        """The lower bound, as an integer when constant."""
        c = self.bounds.constant("lb")
        return c if c is not None else self.bounds.lb

    def _step(self) -> int | SSAValue:
        """The step, as an integer when constant."""
        c = self.bounds.constant("step")
        return c if c is not None else self.bounds.step

    def iteration(self, ctx: IterCtx, offset: int) -> int | SSAValue:
        """The iteration number ``j`` of an item (0-based)."""
        m = self.math
        if ctx.kind == "abs":
            return offset
        if ctx.kind == "kernel" and self.bounds.unit_step:
            return m.add(m.sub(ctx.counter, self._lb()), offset) if not isinstance(self._lb(), int) \
                else m.add(ctx.counter, offset - self._lb())
        return m.add(ctx.counter, offset)

    def induction(self, ctx: IterCtx, offset: int) -> int | SSAValue:
        """The original loop's induction value for an item."""
        m = self.math
        if ctx.kind == "kernel" and self.bounds.unit_step:
            return m.add(ctx.counter, offset)
        if ctx.kind == "trip" and self.bounds.unit_step:
            return m.add(self.bounds.ub, offset)
        return m.plus(self._lb(), m.mul(self.iteration(ctx, offset), self._step()))

    # ------------------------------------------------------------------ cloning

    def scope(self, ctx: IterCtx, offset: int) -> dict[SSAValue, SSAValue]:
        """Value map of one iteration in the current op list (clones made there are reused)."""
        key = (self.math.out_id, ctx.kind, offset)
        return self.scopes.setdefault(key, {})

    def lookup(self, value: SSAValue, ctx: IterCtx, offset: int) -> SSAValue:
        """``value`` as seen by the item's iteration (materializing what it needs)."""
        mapping = self.scope(ctx, offset)
        if value in mapping:
            return mapping[value]
        if value is self.bounds.iv:
            mapping[value] = self.math.val(self.induction(ctx, offset))
        elif value in self.buffers:
            mapping[value] = self._slot(value, ctx, offset)
        elif isinstance(value.owner, Operation) and value.owner.parent_block() is self.body \
                and is_pure(value.owner):
            self._clone_pure(value.owner, ctx, offset)
        return mapping.get(value, value)

    def _slot(self, root: SSAValue, ctx: IterCtx, offset: int) -> SSAValue:
        """``tile.slot`` of a multi-buffered root for the item's iteration."""
        buf = self.buffers[root]
        if ctx.kind == "kernel" and ctx.period % buf.slots == 0:
            index = offset % buf.slots
        else:
            index = self.math.rem(self.iteration(ctx, offset), buf.slots)
        slot = SlotOp.create(operands=[buf.alloc, self.math.val(index)], result_types=[root.type])
        slot.results[0].name_hint = root.name_hint
        return self.math.emit(slot)

    def _clone_pure(self, op: Operation, ctx: IterCtx, offset: int) -> None:
        """Clone (or fold) a pure body op for one iteration."""
        mapping = self.scope(ctx, offset)
        operands = [self.lookup(v, ctx, offset) for v in op.operands]
        folded = self.math.fold(op, operands)
        if folded is not None:
            mapping[op.results[0]] = folded
            return
        clone = op.clone(value_mapper=mapping)
        _strip(clone)
        self.math.emit(clone)

    def emit_op(self, op: Operation, ctx: IterCtx, offset: int) -> None:
        """Clone staged ``op`` for one iteration (a conditional on a constant is inlined)."""
        if isinstance(op, scf.IfOp) and not op.results:
            cond = self.math.value_of(self.lookup(op.cond, ctx, offset))
            if cond is not None:
                region = op.true_region if cond else op.false_region
                for inner in (region.block.ops if region.blocks else []):
                    if not isinstance(inner, scf.YieldOp):
                        self.emit_op(inner, ctx, offset)
                return
        mapping = self.scope(ctx, offset)
        for inner in op.walk():
            for value in inner.operands:
                self.lookup(value, ctx, offset)
        clone = op.clone(value_mapper=mapping)
        _strip(clone)
        self.math.emit(clone)

    # ------------------------------------------------------------------ items and blocks

    def emit_items(self, items: list[Item], ctx: IterCtx) -> None:
        """Ops, commits and waits of one step into the current op list."""
        for item in items:
            if item.kind == OP:
                self.emit_op(self.staged[item.ref], ctx, item.iteration)
            elif item.kind == COMMIT:
                self.math.emit(make_commit(self.template.groups[item.ref].queue))
            elif item.kind == WAIT:
                self.math.emit(make_wait_group(item.ref, item.pending))

    def emit_guarded(self, items: list[Item], trips: SSAValue) -> None:
        """Items whose ``guard`` > 0 run under ``scf.if trips >= guard`` (runs of equal guards)."""
        run: list[Item] = []
        for item in [*items, None]:
            if run and (item is None or item.guard != run[0].guard):
                if run[0].guard == 0:
                    self.emit_items(run, IterCtx("abs"))
                else:
                    cond = self.math.emit(arith.CmpiOp(trips, self.math.const(run[0].guard), "sge"))
                    self.math.emit(self.make_if(cond, lambda r=run: self.emit_items(r, IterCtx("abs"))))
                run = []
            if item is not None:
                run.append(item)

    def make_if(self, cond: SSAValue, fill, otherwise=None) -> scf.IfOp:
        """``scf.if cond`` whose branches hold what ``fill`` / ``otherwise`` emit."""
        then_ops = self.nested(fill) + [scf.YieldOp()]
        else_ops = self.nested(otherwise) + [scf.YieldOp()] if otherwise else None
        return scf.IfOp(cond, [], then_ops, else_ops)

    def nested(self, fill) -> list[Operation]:
        """Run ``fill`` with a fresh op list and return what it emitted."""
        m = self.math
        saved = m.out, m.out_id
        m.lists += 1
        m.out, m.out_id = [], m.lists
        try:
            fill()
            return m.out
        finally:
            m.out, m.out_id = saved

    def kernel_loop(self, items: list[Item], lb: int | SSAValue, ub: int | SSAValue,
                    unroll: int = 1) -> None:
        """The steady-state ``scf.for`` from ``lb`` to ``ub`` (unit step over the original
        induction values, or a 0-based counter for other steps), its body ``unroll`` kernel
        steps (modulo variable expansion: slot indices become constants)."""
        block = Block(arg_types=[IndexType()])
        counter = block.args[0]
        counter.name_hint = self.bounds.iv.name_hint if self.bounds.unit_step else "k"
        body = [Item(i.kind, i.ref, i.iteration + u, i.pending, i.guard)
                for u in range(unroll) for i in items]
        ctx = IterCtx("kernel", counter, unroll)
        ops = self.nested(lambda: self.emit_items(body, ctx))
        block.add_ops([*ops, scf.YieldOp()])
        if unroll == 1 and self.bounds.unit_step:
            step = self.bounds.step
        else:
            step = self.math.const(unroll)
        self.math.emit(scf.ForOp(self.math.val(lb), self.math.val(ub), step, [], block))


def _strip(op: Operation) -> None:
    """Drop the scheduling annotations from a clone."""
    for key in ANNOTATIONS:
        op.attributes.pop(key, None)
