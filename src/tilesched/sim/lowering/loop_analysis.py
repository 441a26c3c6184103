"""What each iteration of an ``scf.for`` feeds the simulator, as a function of the iteration.

Steady-state simulation (``steady.py``) may skip iterations of a loop only if the skipped ones would
have fed the engine the same instructions as simulated ones, up to a shift of the regions they
touch. This module proves that for a segment of iterations by evaluating the loop body
symbolically in the iteration index ``n`` (values defined outside the loop are concrete: the
lowering is at that point of the run):

- a value is :class:`Periodic` when ``v(n) = q[n % P] + d[n % P] * (n // P)`` (constants,
  the induction variable, sums, multiples, ``n mod c``, ``n floordiv c``, selects by periodic
  conditions); *opaque* when it does not depend on ``n`` but is not known here (inner induction
  variables); or unknown;
- a comparison of periodic values is periodic only until its outcome changes for some residue
  ``n % P``: that iteration is a *breakpoint* and ends the segment (an ``scf.if`` that fires only
  at iteration 1000 makes 999, 1000 and 1001 segment boundaries);
- sinks must be periodic: view and slot offsets (whose per-period increment becomes the buffer's
  region *shift*; out-of-bounds iterations are breakpoints, so the lowering still reports them),
  branch conditions, inner trip counts, ``wait_group`` counts, event ids (exactly periodic:
  ``(i + c) mod N`` names the same flags every N iterations); ``iter_args`` must advance by a
  constant (their closed form lets the lowering jump).

Within a segment ``[start, end)`` the instructions of iteration ``n + P*t`` are those of ``n`` with
every region of buffer ``b`` moved by ``t * shift[b]``. Anything else (an allocation in the body,
an unknown dependence on ``n`` reaching a sink) makes the loop *unanalyzable*, with a reason, and
it is simulated in full.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineSymExpr,
)

from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.sim.isa import MAX_PERIOD
from tilesched.sim.lowering.periodic import (
    OPAQUE,
    UNKNOWN,
    Periodic,
    Sym,
    add,
    const,
    increment,
    lcm,
    mul,
    neg,
    negation,
    select,
    sub,
)


class Unanalyzable(Exception):
    """The loop's iterations cannot be shown periodic (the message says why)."""


@dataclass
class Segment:
    """Iterations ``[start, end)`` whose instructions repeat every ``period`` iterations, each
    repetition moving the regions of buffer ``b`` by ``shift[b]`` (``None``: buffer accessed
    with different increments, so its regions do not simply move)."""

    start: int
    end: int
    period: int
    shift: dict[int, tuple[int, ...] | None] = field(default_factory=dict)
    carried: list[Periodic] = field(default_factory=list)
    reads: dict | None = None  # buffer -> [(lo forms, extents) or None per read] (None: unknown)

    def may_read(self, buf: int, region, start: int, trips: int) -> bool:
        """Can an iteration in ``[start, trips)`` read an element of ``region`` of ``buf``?"""
        if self.reads is None:
            return True
        for read in self.reads.get(buf, ()):
            if read is None or _read_overlaps(read, region, start, trips):
                return True
        return False

    def carried_at(self, n: int) -> list[int]:
        """``iter_args`` values at the start of iteration ``n``."""
        return [form.at(n) for form in self.carried]


def analyze_loop(loop: scf.ForOp, lb: int, step: int, trips: int, start: int, env: dict,
                 view_type) -> Segment:
    """The segment of iterations starting at ``start`` (raises :class:`Unanalyzable`)."""
    return _Analysis(loop, lb, step, trips, start, env, view_type).run()


class _Analysis:
    """One symbolic evaluation of a loop body over iterations ``[start, trips)``."""

    def __init__(self, loop, lb, step, trips, start, env, view_type):
        self.loop = loop
        self.start, self.end = start, trips
        self.env = env  # concrete values from outside the loop
        self.view_type = view_type
        self.syms: dict[SSAValue, object] = {}
        self.period = 1
        self.accesses: dict[int, list[tuple[Periodic, ...]]] = {}
        self.reads: dict[int, list] = {}  # buffer -> (lo forms, extents) per read, None: unknown
        body = loop.body.block
        self.syms[body.args[0]] = Sym(Periodic((lb,), (step,)))
        self.lb, self.step = lb, step

    def run(self) -> Segment:
        carried = self._carried_forms()
        for arg, form in zip(self.loop.body.block.args[1:], carried, strict=True):
            self.syms[arg] = Sym(form)
        self._block(self.loop.body.block)
        if self.period > MAX_PERIOD:
            raise Unanalyzable(f"its iterations repeat only every {self.period} iterations")
        shift = {}
        for buf, forms in self.accesses.items():
            moves = {increment(f, self.period) for f in forms}
            shift[buf] = moves.pop() if len(moves) == 1 and None not in moves else None
        reads = None if getattr(self, "reads_unknown", False) else self.reads
        return Segment(self.start, max(self.end, self.start + 1), self.period, shift, carried,
                       reads)

    # ------------------------------------------------------------------ iter_args

    def _carried_forms(self) -> list[Periodic]:
        """Closed forms of the loop's ``iter_args``: each must advance by a constant."""
        loop = self.loop
        inits = [self._outer(v) for v in loop.iter_args]
        if any(not isinstance(v, int) or isinstance(v, bool) for v in inits):
            if inits:
                raise Unanalyzable("it carries values that are not integers")
            return []
        forms = [Periodic.const(v) for v in inits]
        for _ in range(2):
            trial = _Analysis(loop, self.lb, self.step, self.end, self.start, self.env,
                              self.view_type)
            for arg, form in zip(loop.body.block.args[1:], forms, strict=True):
                trial.syms[arg] = Sym(form)
            yielded = trial._block(loop.body.block) or []
            steps = []
            for form, value in zip(forms, yielded, strict=True):
                delta = sub(value, Sym(form)) if isinstance(value, Sym) else UNKNOWN
                if not delta.exact or delta.pa.constant is None:
                    raise Unanalyzable("an iter_arg does not advance by a constant")
                steps.append(delta.pa.constant)
            updated = [Periodic((init,), (c,)) for init, c in zip(inits, steps, strict=True)]
            if updated == forms:
                return forms
            forms = updated
        raise Unanalyzable("an iter_arg does not advance by a constant")

    # ------------------------------------------------------------------ evaluation

    def _outer(self, value: SSAValue):
        if value in self.syms:
            return self.syms[value]
        if value in self.env:
            return self.env[value]
        raise Unanalyzable("it uses a value the simulator cannot compute")

    def _sym(self, value: SSAValue) -> Sym:
        """The symbolic form of an integer value."""
        found = self._outer(value)
        if isinstance(found, Sym):
            return found
        if isinstance(found, bool):
            return const(int(found))
        if isinstance(found, int):
            return const(found)
        return UNKNOWN

    def _block(self, block: Block):
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                return [self._outer(v) if v in self.syms or v in self.env else UNKNOWN
                        for v in op.operands]
            if isinstance(op, func.ReturnOp):
                return None
            self._op(op)
        return None

    def _op(self, op: Operation) -> None:
        if isinstance(op, TileOp):
            self._tile(op)
        elif isinstance(op, ViewOp | SlotOp):
            self.syms[op.results[0]] = self._view(op)
        elif isinstance(op, scf.ForOp):
            self._inner_loop(op)
        elif isinstance(op, scf.IfOp):
            self._branch(op)
        elif isinstance(op, memref.AllocOp):
            raise Unanalyzable("its body allocates memory")
        elif op.name == "sync.wait_group" and op.operands:
            self._need_periodic(self._sym(op.operands[0]), "a wait_group count")
        elif op.name in ("sync.set_flag", "sync.wait_flag") and op.operands:
            # an event id names a flag: it must repeat exactly with the period (a per-slot id
            # (i + c) mod N does), so that skipped periods use the flags the observed ones used
            event = self._need_periodic(self._sym(op.operands[0]), "an event id")
            if event is not None and any(event.d):
                raise Unanalyzable("an event id changes from period to period")
        elif op.name.startswith("sync.") or isinstance(op, StageBorderOp | memref.DeallocOp):
            return
        elif op.name.startswith(("arith.", "affine.apply")):
            self.syms[op.results[0]] = self._scalar(op)
        else:
            raise Unanalyzable(f"its body has '{op.name}'")

    def _need_periodic(self, value: Sym, what: str) -> Periodic | None:
        """A sink value: periodic (recorded in the period) or n-independent opaque."""
        if value.unknown or (value.opaque and not value.independent):
            raise Unanalyzable(f"{what} depends on the iteration in a way the simulator cannot "
                               f"follow")
        if value.opaque:
            return None
        self.period = lcm(self.period, value.pa.period)
        return value.pa

    # ------------------------------------------------------------------ views and tile ops

    def _view(self, op):
        src = self._outer(op.source)
        if isinstance(src, self.view_type):
            src = _SymView(src.buffer, tuple((const(lo), hi - lo) for lo, hi in src.region),
                           src.dims)
        if not isinstance(src, _SymView):
            return _POISON
        region = list(src.region)
        if isinstance(op, SlotOp):
            k = self._sym(op.index)
            root = src.dims[0]
            lo, extent = region[root]
            self._bounds(k, 0, extent - 1)
            region[root] = (add(lo, k), 1)
            return _SymView(src.buffer, tuple(region), src.dims[1:])
        if op.valid:
            raise Unanalyzable("a view has a valid region")
        for root, value, size in zip(src.dims, op.offsets, op.size_list, strict=True):
            offset = self._sym(value)
            lo, extent = region[root]
            self._bounds(offset, 0, extent - size)
            region[root] = (add(lo, offset), size)
        return _SymView(src.buffer, tuple(region), src.dims)

    def _bounds(self, value: Sym, low: int, high: int) -> None:
        """``low <= value <= high`` must hold; iterations where it stops holding are breakpoints
        (the lowering reports the error there)."""
        if value.unknown or (value.opaque and not value.independent):
            raise Unanalyzable("a view offset depends on the iteration in a way the simulator "
                               "cannot follow")
        if value.opaque:
            return
        self.period = lcm(self.period, value.pa.period)
        self._truth(value.pa, (low, high))

    def _tile(self, op: TileOp) -> None:
        mems = [v for v in op.operands if isinstance(v.type, MemRefType)]
        reads = set(range(len(mems))) if op.name == "tile.call" else set(range(len(mems) - 1))
        if op.name == "tile.matmul" and "accumulate" in op.properties:
            reads.add(len(mems) - 1)
        for k, value in enumerate(mems):
            found = self._outer(value)
            if found is _POISON:
                raise Unanalyzable(f"'{op.name}' uses a view the simulator cannot follow")
            if isinstance(found, self.view_type):
                found = _SymView(found.buffer, tuple((const(lo), hi - lo) for lo, hi in found.region),
                                 found.dims)
            if isinstance(found, _SymView):
                forms = []
                for lo, _ in found.region:
                    if lo.unknown:
                        raise Unanalyzable(f"'{op.name}' uses a view the simulator cannot follow")
                    self.period = lcm(self.period, lo.pa.period)
                    forms.append(lo.pa)
                self.accesses.setdefault(found.buffer, []).append(tuple(forms))
                if k in reads:
                    exact = all(not lo.opaque for lo, _ in found.region)
                    self.reads.setdefault(found.buffer, []).append(
                        (tuple(forms), tuple(extent for _, extent in found.region))
                        if exact else None)

    # ------------------------------------------------------------------ control flow

    def _inner_loop(self, op: scf.ForOp) -> None:
        lb, ub, step = (self._sym(v) for v in (op.lb, op.ub, op.step))
        if not (step.exact and step.independent):
            raise Unanalyzable("an inner loop's step depends on the iteration")
        span = sub(ub, lb)
        self._need_periodic(span, "an inner loop's trip count")
        if span.exact and span.pa.constant is None and any(span.pa.d):
            raise Unanalyzable("an inner loop's trip count grows with the iteration")
        body = op.body.block
        iv = Sym(lb.pa, True) if not lb.unknown else UNKNOWN
        self.syms[body.args[0]] = iv
        args = [self._sym(v) if not isinstance(self._outer(v), self.view_type) else _POISON
                for v in op.iter_args]
        state = [OPAQUE if isinstance(a, Sym) and a.independent else UNKNOWN for a in args]
        for _ in range(len(state) + 1):
            for arg, value in zip(body.args[1:], state, strict=True):
                self.syms[arg] = value
            yielded = self._block(body) or []
            changed = False
            for k, value in enumerate(yielded):
                if state[k] is OPAQUE and not (isinstance(value, Sym) and value.independent):
                    state[k] = UNKNOWN
                    changed = True
            if not changed:
                break
        for result, value in zip(op.results, state, strict=False):
            self.syms[result] = value

    def _branch(self, op: scf.IfOp) -> None:
        cond = self._sym(op.cond)
        if cond.unknown or (cond.opaque and not cond.independent):
            raise Unanalyzable("a branch condition depends on the iteration in a way the "
                               "simulator cannot follow")
        regions = [(op.true_region, 1), (op.false_region, 0)]
        if cond.exact and cond.pa.constant is not None:
            taken = 1 if cond.pa.constant else 0
            for region, side in regions:
                if side != taken and region.blocks:
                    self._reads_only(region.blocks[0])
            regions = [r for r in regions if r[1] == taken]
        else:
            self._need_periodic(cond, "a branch condition")
        results = {}
        for region, taken in regions:
            results[taken] = self._block(region.blocks[0]) if region.blocks else None
        for k, result in enumerate(op.results):
            values = [r[k] if r and k < len(r) else UNKNOWN for r in results.values()]
            if len(values) == 1:
                self.syms[result] = values[0]
            elif cond.exact and all(isinstance(v, Sym) and v.exact for v in values):
                self.syms[result] = select(cond, results[1][k], results[0][k])
            elif all(isinstance(v, Sym) and v.independent for v in values):
                self.syms[result] = OPAQUE
            else:
                self.syms[result] = UNKNOWN

    def _reads_only(self, block: Block) -> None:
        """Note the reads of a branch not taken in this segment (a later one may take it)."""
        saved = (self.end, self.period, self.accesses, dict(self.syms))
        self.accesses = {}
        try:
            self._block(block)
        except Unanalyzable:
            self.reads_unknown = True
        self.end, self.period, self.accesses, self.syms = saved

    # ------------------------------------------------------------------ index math

    def _scalar(self, op: Operation):
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            return const(attr.value.data) if isinstance(attr, IntegerAttr) else UNKNOWN
        if isinstance(op, affine.ApplyOp):
            operands = [self._sym(v) for v in op.operands]
            dims = op.map.data.num_dims
            return self._affine(op.map.data.results[0], operands[:dims], operands[dims:])
        if op.name not in _RULES:
            return UNKNOWN
        values = [self._sym(v) for v in op.operands]
        if op.name == "arith.cmpi":
            return self._compare(op.predicate.value.data, *values)
        if op.name == "arith.select":
            cond, a, b = values
            if cond.exact and cond.pa.constant is not None:
                return a if cond.pa.constant else b
            if cond.exact and a.exact and b.exact:
                self.period = lcm(self.period, cond.pa.period)
                return select(cond, a, b)
            if cond.independent and a.independent and b.independent:
                return OPAQUE
            return UNKNOWN
        if op.name in ("arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui"):
            a, b = values
            less = self._compare(2, a, b)
            if less.unknown:
                return UNKNOWN
            pick_a = less if "min" in op.name else negation(less)
            if pick_a.exact and pick_a.pa.constant is not None:
                return a if pick_a.pa.constant else b
            if pick_a.exact and a.exact and b.exact:
                return select(pick_a, a, b)
            return OPAQUE if a.independent and b.independent else UNKNOWN
        return _RULES[op.name](self, *values)

    def _affine(self, expr, dims: list[Sym], syms: list[Sym]) -> Sym:
        if isinstance(expr, AffineConstantExpr):
            return const(expr.value)
        if isinstance(expr, AffineDimExpr):
            return dims[expr.position]
        if isinstance(expr, AffineSymExpr):
            return syms[expr.position]
        if isinstance(expr, AffineBinaryOpExpr):
            a = self._affine(expr.lhs, dims, syms)
            b = self._affine(expr.rhs, dims, syms)
            kind = expr.kind
            if kind == AffineBinaryOpKind.Add:
                return add(a, b)
            if kind == AffineBinaryOpKind.Mul:
                return mul(a, b)
            if kind == AffineBinaryOpKind.Mod:
                return self._mod(a, b)
            if kind == AffineBinaryOpKind.FloorDiv:
                return self._div(a, b)
            if kind == AffineBinaryOpKind.CeilDiv:
                return neg(self._div(neg(a), b))
        return UNKNOWN

    def _nonneg(self, value: Sym) -> bool:
        """Is an exact periodic value >= 0 on the whole segment? (A sign change is a breakpoint.)"""
        return self._truth(value.pa, (0, None)) == (1,) * value.pa.period

    def _div(self, a: Sym, b: Sym, signed: bool = False) -> Sym:
        """``a floordiv b`` (``signed``: truncating, so ``a`` must stay non-negative)."""
        return self._by_constant(a, b, signed, lambda pa, c: Periodic(
            tuple(x // c for x in pa.q), tuple(x // c for x in pa.d)))

    def _mod(self, a: Sym, b: Sym, signed: bool = False) -> Sym:
        """``a mod b`` (``signed``: the remainder of truncation, so ``a`` must stay
        non-negative)."""
        return self._by_constant(a, b, signed, lambda pa, c: Periodic(
            tuple(x % c for x in pa.q), (0,) * pa.period))

    def _by_constant(self, a: Sym, b: Sym, signed: bool, form) -> Sym:
        """Division or remainder by a positive constant ``c``: exact on an expansion of ``a``
        whose per-period increments are multiples of ``c``; ``form(expansion, c)`` is the
        result."""
        if b.exact and b.pa.constant is not None and b.pa.constant > 0:
            c = b.pa.constant
            if a.exact:
                if signed and not self._nonneg(a):
                    return UNKNOWN
                pa = a.pa.divisible_expansion(c)
                if pa.period > MAX_PERIOD:
                    return UNKNOWN
                return Sym(form(pa, c))
        if a.independent and b.independent:
            return OPAQUE
        return UNKNOWN

    def _compare(self, predicate: int, a: Sym, b: Sym) -> Sym:
        """``arith.cmpi`` (0..9: eq ne slt sle sgt sge ult ule ugt uge) as a 0/1 value."""
        if a.unknown or b.unknown:
            return UNKNOWN
        diff = sub(a, b)
        if diff.opaque:
            return OPAQUE if diff.independent else UNKNOWN
        if predicate >= 6:  # unsigned: exact when both sides stay non-negative
            if not (a.exact and b.exact and self._nonneg(a) and self._nonneg(b)):
                return UNKNOWN
            predicate -= 4
        interval, negate = [((0, 0), False), ((0, 0), True), ((None, -1), False),
                            ((None, 0), False), ((1, None), False), ((0, None), False)][predicate]
        return Sym(Periodic(self._truth(diff.pa, interval, negate), (0,) * diff.pa.period))

    def _truth(self, pa: Periodic, interval, negate: bool = False) -> tuple[int, ...]:
        """Per residue, whether ``v(n)`` lies in ``interval`` (``(low, high)``, inclusive,
        ``None`` unbounded; ``negate``: outside it) at the segment start; the first iteration
        where that changes for some residue becomes the segment's end."""
        p = pa.period
        low, high = interval
        out = []
        for r in range(p):
            t0 = max(0, -(-(self.start - r) // p))
            if r + p * t0 >= self.end:
                out.append(1)
                continue
            x = pa.q[r] + pa.d[r] * t0
            first = (low is None or x >= low) and (high is None or x <= high)
            change = _first_change(pa.q[r], pa.d[r], t0, interval, first)
            if change is not None:
                self.end = min(self.end, r + p * change)
            out.append(int(first != negate))
        return tuple(out)


def _read_overlaps(read, region, start: int, trips: int) -> bool:
    """Does a read with lower corners ``forms`` and ``extents`` overlap ``region`` at some
    iteration ``n`` in ``[start, trips)``? Per residue the corners move linearly in ``t``, so the
    iterations overlapping each dimension form an interval."""
    forms, extents = read
    period = 1
    for form in forms:
        period = lcm(period, form.period)
    for r in range(period):
        lo_t = max(0, -(-(start - r) // period))
        hi_t = (trips - 1 - r) // period  # inclusive
        for form, extent, (rlo, rhi) in zip(forms, extents, region, strict=True):
            f = form.expand(period)
            q, d = f.q[r], f.d[r]
            # overlap when rlo - extent < q + d t < rhi
            if d == 0:
                if not rlo - extent < q < rhi:
                    lo_t, hi_t = 1, 0
            elif d > 0:
                lo_t = max(lo_t, (rlo - extent - q) // d + 1)
                hi_t = min(hi_t, -(-(rhi - q) // d) - 1)
            else:
                lo_t = max(lo_t, (rhi - q) // d + 1)
                hi_t = min(hi_t, -(-(rlo - extent - q) // d) - 1)
            if lo_t > hi_t:
                break
        else:
            return True
    return False


def _first_change(q: int, d: int, t0: int, interval, first: bool) -> int | None:
    """The first ``t > t0`` where ``q + d t in interval`` (``(low, high)``, inclusive, ``None``
    for unbounded) differs from its value at ``t0`` (``None``: never). ``q + d t`` is monotone,
    so the ``t`` inside form one interval ``[ta, tb]``."""
    if d == 0:
        return None
    low, high = interval
    if d > 0:
        ta = None if low is None else -(-(low - q) // d)
        tb = None if high is None else (high - q) // d
    else:
        ta = None if high is None else -(-(high - q) // d)
        tb = None if low is None else (low - q) // d
    inside = (ta is None or t0 >= ta) and (tb is None or t0 <= tb)
    if inside:
        return None if tb is None else tb + 1
    if ta is not None and ta > t0 and (tb is None or ta <= tb):
        return ta
    return None


@dataclass(frozen=True)
class _SymView:
    """A view during the analysis: root buffer, per root dim ``(lo symbol, extent)``, dims left."""

    buffer: int
    region: tuple
    dims: tuple[int, ...]


_POISON = object()


_RULES = {
    "arith.addi": lambda s, a, b: add(a, b),
    "arith.subi": lambda s, a, b: sub(a, b),
    "arith.muli": lambda s, a, b: mul(a, b),
    "arith.floordivsi": lambda s, a, b: s._div(a, b),
    "arith.divsi": lambda s, a, b: s._div(a, b, signed=True),
    "arith.divui": lambda s, a, b: s._div(a, b, signed=True),
    "arith.ceildivsi": lambda s, a, b: neg(s._div(neg(a), b)),
    "arith.ceildivui": lambda s, a, b: neg(s._div(neg(a), b)),
    "arith.remsi": lambda s, a, b: s._mod(a, b, signed=True),
    "arith.remui": lambda s, a, b: s._mod(a, b, signed=True),
    "arith.cmpi": None,
    "arith.select": None,
    "arith.minsi": None, "arith.maxsi": None, "arith.minui": None, "arith.maxui": None,
    "arith.index_cast": lambda s, a: a,
    "arith.index_castui": lambda s, a: a,
    "arith.extsi": lambda s, a: a,
    "arith.extui": lambda s, a: a,
}
