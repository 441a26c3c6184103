"""Emit the code of a software-pipelined loop (prologue, kernel ``scf.for``, epilogue).

:class:`PipelineEmitter` turns a :class:`~tilesched.schedule.pipeline_waits.Plan`
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
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, i1
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.affine import constant_value
from tilesched.ir.tile import SlotOp
from tilesched.schedule.pipeline_waits import COMMIT, OP, WAIT, Item, Template
from tilesched.transforms.pipeline_loop import ANNOTATIONS, is_pure
from tilesched.transforms.sync_common import make_commit, make_wait_group

_FOLD = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.remui": lambda a, b: a % b if b else None,
    "arith.floordivsi": lambda a, b: a // b if b else None,
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.minsi": min, "arith.maxsi": max,
}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
        "uge": lambda a, b: a >= b}
_CMP_NAMES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


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


class IndexMath:
    """Appends index arithmetic to the current op list, folding constants."""

    def __init__(self, constants: list[Operation]):
        self.constants = constants
        self.pool: dict[tuple[int, str], SSAValue] = {}
        self.known: dict[SSAValue, int] = {}
        self.out: list[Operation] = []
        self.out_id = 0  # names the current op list (scopes and reuse never cross lists)
        self.lists = 0
        self.memo: dict[tuple, SSAValue] = {}

    def const(self, value: int, bool_: bool = False) -> SSAValue:
        key = (value, "i1" if bool_ else "index")
        if key not in self.pool:
            op = arith.ConstantOp(IntegerAttr(value, i1 if bool_ else IndexType()))
            op.result.name_hint = None if bool_ else (f"c{value}" if value >= 0 else f"c_{-value}")
            self.constants.append(op)
            self.pool[key] = op.result
            self.known[op.result] = value
        return self.pool[key]

    def value_of(self, v: SSAValue) -> int | None:
        """The constant value of ``v`` if known."""
        if v not in self.known:
            known = constant_value(v) if isinstance(v.owner, arith.ConstantOp) else None
            if known is None:
                return None
            self.known[v] = known
        return self.known[v]

    def emit(self, op: Operation) -> SSAValue:
        self.out.append(op)
        return op.results[0] if op.results else None

    def arith(self, op: Operation) -> SSAValue:
        """Emit index arithmetic, reusing an identical op of the current op list."""
        key = (self.out_id, op.name, tuple(op.operands))
        if key not in self.memo:
            self.memo[key] = self.emit(op)
        return self.memo[key]

    def seed(self, values: list[SSAValue]) -> None:
        """Reuse existing index constants (defined before the loop) for the pool."""
        for value in values:
            known = constant_value(value)
            if known is not None and isinstance(value.type, IndexType):
                self.pool.setdefault((known, "index"), value)
                self.known[value] = known

    def val(self, x: int | SSAValue) -> SSAValue:
        return self.const(x) if isinstance(x, int) else x

    def add(self, a: int | SSAValue, b: int) -> int | SSAValue:
        if not isinstance(a, int) and self.value_of(a) is not None:
            a = self.value_of(a)
        if isinstance(a, int):
            return a + b
        if b == 0:
            return a
        if b < 0:
            return self.arith(arith.SubiOp(a, self.const(-b)))
        return self.arith(arith.AddiOp(a, self.const(b)))

    def sub(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        if not isinstance(b, int) and self.value_of(b) is not None:
            b = self.value_of(b)
        if isinstance(b, int):
            return self.add(a, -b)
        return self.arith(arith.SubiOp(self.val(a), b))

    def mul(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if b == 1 or a == 0:
            return a
        if a == 1 or b == 0:
            return b
        return self.arith(arith.MuliOp(self.val(a), self.val(b)))

    def plus(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        if isinstance(b, int):
            return self.add(a, b)
        if isinstance(a, int):
            return self.add(b, a)
        return self.arith(arith.AddiOp(a, b))

    def rem(self, a: int | SSAValue, n: int) -> int | SSAValue:
        if isinstance(a, int):
            return a % n
        return self.arith(arith.RemUIOp(a, self.const(n)))


@dataclass
class LoopBounds:
    """The original loop's bounds (SSA values, and their constants when known)."""

    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    iv: SSAValue

    def constant(self, which: str) -> int | None:
        return constant_value(getattr(self, which))

    @property
    def unit_step(self) -> bool:
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
        self.math.seed(_constants_before(loop))

    # ------------------------------------------------------------------ iterations

    def _lb(self) -> int | SSAValue:
        c = self.bounds.constant("lb")
        return c if c is not None else self.bounds.lb

    def _step(self) -> int | SSAValue:
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
        buf = self.buffers[root]
        if ctx.kind == "kernel" and ctx.period % buf.slots == 0:
            index = offset % buf.slots
        else:
            index = self.math.rem(self.iteration(ctx, offset), buf.slots)
        slot = SlotOp.create(operands=[buf.alloc, self.math.val(index)], result_types=[root.type])
        slot.results[0].name_hint = root.name_hint
        return self.math.emit(slot)

    def _clone_pure(self, op: Operation, ctx: IterCtx, offset: int) -> None:
        mapping = self.scope(ctx, offset)
        operands = [self.lookup(v, ctx, offset) for v in op.operands]
        folded = self._fold(op, operands)
        if folded is not None:
            mapping[op.results[0]] = folded
            return
        clone = op.clone(value_mapper=mapping)
        _strip(clone)
        self.math.emit(clone)

    def _fold(self, op: Operation, operands: list[SSAValue]) -> SSAValue | None:
        if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
            return self.math.const(self.math.value_of(op.result))
        values = [self.math.value_of(v) for v in operands]
        if None in values or len(op.results) != 1 or len(values) != 2:
            return None
        if not all(isinstance(v.type, IndexType) for v in operands):
            return None
        if op.name in _FOLD:
            result = _FOLD[op.name](*values)
            return None if result is None else self.math.const(result)
        if isinstance(op, arith.CmpiOp):
            predicate = _CMP_NAMES[op.predicate.value.data]
            return self.math.const(int(_CMP[predicate](*values)), bool_=True)
        return None

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


def _constants_before(op: Operation) -> list[SSAValue]:
    """Results of ``arith.constant`` ops that dominate ``op`` (earlier in enclosing blocks)."""
    found = []
    while op.parent_block() is not None:
        for other in op.parent_block().ops:
            if other is op:
                break
            if isinstance(other, arith.ConstantOp):
                found.append(other.result)
        op = op.parent_op()
        if op is None:
            break
    return found


def _strip(op: Operation) -> None:
    for key in ANNOTATIONS:
        op.attributes.pop(key, None)


def is_memref(value: SSAValue) -> bool:
    return isinstance(value.type, MemRefType)
