"""What the ``arith`` ops tilesched evaluates compute: one table, used wherever an op is run or folded.

The simulator's lowering runs index math and scalar arithmetic with it (``sim/lowering/lower.py``); the
IR's constant analyses (``ir/annotations.constant_index``) and the software-pipeline emitter's
constant folding (``transforms/software_pipeline/index.py``) fold with it, so a value the
simulator computes and a value a pass folds can never differ. Integers wrap at their bit width
(index: 64 bits) as on the machine; ``cmpi``'s unsigned predicates compare as unsigned.

:func:`evaluate` raises ``ZeroDivisionError``, ``ValueError`` (a shift outside the width),
``OverflowError`` or ``TypeError`` where MLIR's result is undefined (poison); :func:`fold`
answers None there instead.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation


def evaluate(op: Operation, values: list):
    """The result of arith op ``op`` (one of :data:`EVALUATED`) on operand ``values``."""
    return _wrap(op, _ARITH[op.name](op, *values))


def fold(op: Operation, values: list):
    """``evaluate``, or None when ``op`` is not evaluated here or its result is undefined."""
    if op.name not in _ARITH:
        return None
    try:
        return evaluate(op, values)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _cmpi(op, a, b):
    """``arith.cmpi`` predicates 0..9: eq ne slt sle sgt sge ult ule ugt uge."""
    predicate = op.predicate.value.data
    if predicate >= 6:  # unsigned: compare as 64-bit unsigned
        a, b = a % (1 << 64), b % (1 << 64)
        predicate -= 4
    return [a == b, a != b, a < b, a <= b, a > b, a >= b][predicate]


def _bit_width(op: Operation) -> int:
    """Bits of an op's integer result (index: 64)."""
    result = op.results[0].type if op.results else None
    return result.width.data if isinstance(result, IntegerType) else 64


def _wrap(op: Operation, value):
    """Integer results wrap around at their bit width, as on the machine (Python ints do not:
    a loop squaring a value would otherwise grow it without bound)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    width = _bit_width(op)
    if width == 1:
        return value & 1
    half = 1 << (width - 1)
    return (value + half) % (1 << width) - half


def _shift(op: Operation, a: int, b: int, left: bool) -> int:
    """``arith.shli`` / ``shrsi`` / ``shrui``: amounts outside 0..width-1 give poison in MLIR,
    an error here."""
    width = _bit_width(op)
    if not 0 <= b < width:
        raise ValueError(f"shift amount {b} is outside 0..{width - 1}")
    if left:
        return a << b
    return (a % (1 << width)) >> b if op.name == "arith.shrui" else a >> b


def _trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero (``arith.divsi``)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


_ARITH = {
    "arith.addi": lambda op, a, b: a + b,
    "arith.subi": lambda op, a, b: a - b,
    "arith.muli": lambda op, a, b: a * b,
    "arith.divsi": lambda op, a, b: _trunc_div(a, b),
    "arith.divui": lambda op, a, b: a // b,
    "arith.floordivsi": lambda op, a, b: a // b,
    "arith.ceildivsi": lambda op, a, b: -(-a // b),
    "arith.ceildivui": lambda op, a, b: -(-a // b),
    "arith.remsi": lambda op, a, b: a - b * _trunc_div(a, b),
    "arith.remui": lambda op, a, b: a % b,
    "arith.minsi": lambda op, a, b: min(a, b),
    "arith.maxsi": lambda op, a, b: max(a, b),
    "arith.minui": lambda op, a, b: min(a, b),
    "arith.maxui": lambda op, a, b: max(a, b),
    "arith.andi": lambda op, a, b: a & b,
    "arith.ori": lambda op, a, b: a | b,
    "arith.xori": lambda op, a, b: a ^ b,
    "arith.shli": lambda op, a, b: _shift(op, a, b, left=True),
    "arith.shrsi": lambda op, a, b: _shift(op, a, b, left=False),
    "arith.shrui": lambda op, a, b: _shift(op, a, b, left=False),
    "arith.cmpi": _cmpi,
    "arith.select": lambda op, c, a, b: a if c else b,
    "arith.index_cast": lambda op, a: int(a),
    "arith.index_castui": lambda op, a: int(a),
    "arith.extsi": lambda op, a: a,
    "arith.extui": lambda op, a: a,
    "arith.trunci": lambda op, a: a,
    "arith.addf": lambda op, a, b: a + b,
    "arith.subf": lambda op, a, b: a - b,
    "arith.mulf": lambda op, a, b: a * b,
    "arith.divf": lambda op, a, b: a / b if b else math.copysign(math.inf, a) if a else math.nan,
    "arith.negf": lambda op, a: -a,
    "arith.maximumf": lambda op, a, b: max(a, b),
    "arith.minimumf": lambda op, a, b: min(a, b),
    "arith.sitofp": lambda op, a: float(a),
    "arith.uitofp": lambda op, a: float(a),
    "arith.fptosi": lambda op, a: int(a),
    "arith.fptoui": lambda op, a: int(a),
    "arith.extf": lambda op, a: a,
    "arith.truncf": lambda op, a: a,
}




EVALUATED = frozenset(_ARITH)
