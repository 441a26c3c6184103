"""Symbolic index expressions: affine forms over SSA values, and ``(affine) mod N``.

Dependence analysis needs to compare offsets such as ``%k * 64`` and
``(%i + 1) mod 2`` without running the program. :func:`index_expr` folds the
``arith`` ops that compute an index into an :class:`Affine` (``c + sum a_i * v_i``),
a :class:`Mod` of an affine form, or ``None`` (unknown). Loop induction variables
and function arguments stay symbolic.

It reads only the IR (xDSL's ``arith`` / ``scf``), so it lives beside it: the verifier checks every
value a slot-indexed event id can take with :func:`index_values`, and the analyses above build on
the same forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue


@dataclass(frozen=True)
class Affine:
    """``const + sum(coeff * symbol)``; symbols are SSA values (loop IVs, arguments)."""

    const: int = 0
    terms: tuple[tuple[SSAValue, int], ...] = field(default=())

    @staticmethod
    def symbol(value: SSAValue) -> Affine:
        return Affine(0, ((value, 1),))

    def _coeffs(self) -> dict[SSAValue, int]:
        return dict(self.terms)

    @staticmethod
    def _make(const: int, coeffs: dict[SSAValue, int]) -> Affine:
        ordered = sorted(((v, c) for v, c in coeffs.items() if c), key=lambda vc: id(vc[0]))
        return Affine(const, tuple(ordered))

    def __add__(self, other: Affine) -> Affine:
        coeffs = self._coeffs()
        for value, coeff in other.terms:
            coeffs[value] = coeffs.get(value, 0) + coeff
        return Affine._make(self.const + other.const, coeffs)

    def scale(self, factor: int) -> Affine:
        return Affine._make(self.const * factor, {v: c * factor for v, c in self.terms})

    def __sub__(self, other: Affine) -> Affine:
        return self + other.scale(-1)

    @property
    def is_constant(self) -> bool:
        return not self.terms

    def coeff(self, value: SSAValue) -> int:
        return self._coeffs().get(value, 0)

    def substitute(self, value: SSAValue, replacement: Affine) -> Affine:
        """Replace ``value`` by ``replacement`` (e.g. ``i -> i + d * step``)."""
        coeff = self.coeff(value)
        if not coeff:
            return self
        rest = Affine._make(self.const, {v: c for v, c in self.terms if v is not value})
        return rest + replacement.scale(coeff)

    def evaluate(self, env: dict[SSAValue, int]) -> int:
        return self.const + sum(c * env[v] for v, c in self.terms)


@dataclass(frozen=True)
class Mod:
    """``base mod modulus`` (non-negative result, as for slot indices ``(i + c) mod N``)."""

    base: Affine
    modulus: int

    def substitute(self, value: SSAValue, replacement: Affine) -> Mod:
        return Mod(self.base.substitute(value, replacement), self.modulus)

    def evaluate(self, env: dict[SSAValue, int]) -> int:
        return self.base.evaluate(env) % self.modulus


IndexExpr = Affine | Mod | None


def constant_value(value: SSAValue) -> int | None:
    """The integer value of an ``arith.constant``, else None."""
    expr = index_expr(value)
    return expr.const if isinstance(expr, Affine) and expr.is_constant else None


def index_expr(value: SSAValue, _depth: int = 0) -> IndexExpr:
    """Fold the arith ops computing ``value`` into an affine or mod expression, or None."""
    if _depth > 64:
        return None
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        return Affine(attr.value.data) if isinstance(attr, IntegerAttr) else None
    if not isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.RemUIOp
                      | arith.RemSIOp | arith.DivUIOp | arith.DivSIOp | arith.FloorDivSIOp):
        return Affine.symbol(value)  # block argument or an op we do not fold: a symbol
    lhs = index_expr(owner.lhs, _depth + 1)
    rhs = index_expr(owner.rhs, _depth + 1)
    return _fold(owner, lhs, rhs)


def _fold(op, lhs: IndexExpr, rhs: IndexExpr) -> IndexExpr:
    if not isinstance(lhs, Affine) or not isinstance(rhs, Affine):
        if isinstance(op, arith.AddiOp | arith.SubiOp) and isinstance(lhs, Mod) and _is_zero(rhs):
            return lhs
        return None
    if isinstance(op, arith.AddiOp):
        return lhs + rhs
    if isinstance(op, arith.SubiOp):
        return lhs - rhs
    if isinstance(op, arith.MuliOp):
        if rhs.is_constant:
            return lhs.scale(rhs.const)
        return rhs.scale(lhs.const) if lhs.is_constant else None
    if not rhs.is_constant or rhs.const <= 0:
        return None
    if isinstance(op, arith.RemUIOp | arith.RemSIOp):
        return Affine(lhs.const % rhs.const) if lhs.is_constant else Mod(lhs, rhs.const)
    if lhs.is_constant:  # division of constants
        return Affine(lhs.const // rhs.const)
    return None


def _is_zero(expr: IndexExpr) -> bool:
    return isinstance(expr, Affine) and expr.is_constant and expr.const == 0


# ---------------------------------------------------------------------- value sets

MAX_VALUES = 4096  # values kept per set: an event id or slot index takes a handful


def index_values(value: SSAValue, cap: int = MAX_VALUES) -> frozenset[int] | None:
    """Every value the index ``value`` can take when the program runs, or None when that set
    is not bounded by what the program says (a function argument, a loop with bounds not known
    here, an op not folded) or holds more than ``cap`` values.

    Constants, the induction variables of ``scf.for`` loops with constant bounds (each value
    of their iteration domain), ``addi``/``subi``/``muli``, ``remui``/``remsi``/``divui``/
    ``divsi``/``floordivsi`` by a positive constant, ``minsi``/``maxsi``/``minui``/``maxui``
    and ``select`` are followed, with the simulator's semantics (``remsi`` and ``divsi``
    truncate). ``(a * i + c) mod N`` takes at most N values however many iterations the loop
    runs: the residues of an induction variable repeat with a period dividing N, so at most N
    iterations are looked at (this is how a per-slot event id ``base + (i + c) mod N`` is
    bounded). Used by the verifier to check every value of an event-id operand against the
    target's limit, and by ``reorder-events`` to count the ids such an operand may use.
    """
    return _values(value, cap, 0)


def _values(value: SSAValue, cap: int, depth: int) -> frozenset[int] | None:
    if depth > 64:
        return None
    owner = value.owner
    if not isinstance(owner, Operation):
        found = _iv_values(value, cap)
        return frozenset(found) if found is not None else None
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        return frozenset((attr.value.data,)) if isinstance(attr, IntegerAttr) else None
    if isinstance(owner, arith.SelectOp):
        a, b = (_values(v, cap, depth + 1) for v in (owner.lhs, owner.rhs))
        return _capped(a | b, cap) if a is not None and b is not None else None
    combine = _COMBINE.get(type(owner))
    if combine is None:
        return None
    rhs = _values(owner.rhs, cap, depth + 1)
    if rhs is None:
        return None
    if isinstance(owner, _REM) and len(rhs) == 1 and min(rhs) > 0:
        return _rem_values(owner, min(rhs), cap, depth)
    lhs = _values(owner.lhs, cap, depth + 1)
    if lhs is None or len(lhs) * len(rhs) > cap * 16:
        return None
    if isinstance(owner, _DIV) and 0 in rhs:
        return None
    return _capped(frozenset(combine(a, b) for a in lhs for b in rhs), cap)


def _rem_values(op, modulus: int, cap: int, depth: int) -> frozenset[int] | None:
    """Values of ``lhs rem modulus`` (``remui`` as Python's ``%``, ``remsi`` truncated)."""
    rem = _COMBINE[type(op)]
    lhs = _values(op.lhs, cap, depth + 1)
    if lhs is not None:
        return frozenset(rem(a, modulus) for a in lhs)
    expr = index_expr(op.lhs)
    if isinstance(expr, Affine):  # residues of each induction variable repeat
        sums = {expr.const % modulus}
        lowest = expr.const
        for symbol, coeff in expr.terms:
            domain = _iv_domain(symbol)
            if domain is None:
                sums = None
                break
            start, step, trips = domain
            first = range(start, start + step * min(modulus, trips if trips is not None
                                                    else modulus), step)
            residues = {coeff * v % modulus for v in first}
            sums = {(s + r) % modulus for s in sums for r in residues}
            if lowest is not None and trips is not None and trips > 0:
                lowest += min(coeff * start, coeff * (start + (trips - 1) * step))
            elif lowest is not None and trips is None and coeff > 0:
                lowest += coeff * start  # the variable only grows from its lower bound
            elif trips != 0:
                lowest = None
        if sums is not None and (isinstance(op, arith.RemUIOp)
                                 or (lowest is not None and lowest >= 0)):
            return frozenset(sums)
    if isinstance(op, arith.RemUIOp):
        return frozenset(range(modulus))
    return frozenset(range(1 - modulus, modulus))


def _iv_values(value: SSAValue, cap: int | None) -> range | None:
    """The values of an ``scf.for`` induction variable with constant bounds, or None (not
    such a variable, or more than ``cap`` of them)."""
    domain = _iv_domain(value)
    if domain is None or domain[2] is None or (cap is not None and domain[2] > cap):
        return None
    start, step, trips = domain
    return range(start, start + trips * step, step)


def _iv_domain(value: SSAValue) -> tuple[int, int, int | None] | None:
    """``(lower bound, step, trip count)`` of an ``scf.for`` induction variable with a constant
    lower bound and positive constant step (the trip count None when the upper bound is not a
    constant), else None."""
    block = getattr(value, "block", None)
    loop = block.parent_op() if block is not None else None
    if not isinstance(loop, scf.ForOp) or value is not loop.body.block.args[0]:
        return None
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or step is None or step <= 0:
        return None
    return lb, step, None if ub is None else max(0, -(-(ub - lb) // step))


def _capped(values: frozenset[int], cap: int) -> frozenset[int] | None:
    return values if len(values) <= cap else None


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


_REM = (arith.RemUIOp, arith.RemSIOp)
_DIV = (arith.RemUIOp, arith.RemSIOp, arith.DivUIOp, arith.DivSIOp, arith.FloorDivSIOp)
_COMBINE = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.RemUIOp: lambda a, b: a % b,
    arith.RemSIOp: lambda a, b: a - b * _trunc_div(a, b),
    arith.DivUIOp: lambda a, b: a // b,
    arith.DivSIOp: _trunc_div,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.MinSIOp: min, arith.MaxSIOp: max, arith.MinUIOp: min, arith.MaxUIOp: max,
}
