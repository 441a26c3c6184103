"""Symbolic index expressions: affine forms over SSA values, and ``(affine) mod N``.

Dependence analysis needs to compare offsets such as ``%k * 64`` and
``(%i + 1) mod 2`` without running the program. :func:`index_expr` folds the
``arith`` ops that compute an index into an :class:`Affine` (``c + sum a_i * v_i``),
a :class:`Mod` of an affine form, or ``None`` (unknown). Loop induction variables
and function arguments stay symbolic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue


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
