"""Periodic integer values of a loop's iteration index, and their arithmetic.

The symbolic values of ``loop_analysis.py``: a :class:`Periodic` is ``v(n) = q[n % P] +
d[n % P] * (n // P)`` for iteration ``n >= 0``; a :class:`Sym` is a periodic value, an *opaque*
one (independent of ``n`` but not known here) or :data:`UNKNOWN`. The functions below are the
arithmetic the analysis applies to them (each gives up to ``UNKNOWN`` where the result is not
periodic). Split from ``loop_analysis.py``, which walks the loop body.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Periodic:
    """``v(n) = q[n % P] + d[n % P] * (n // P)`` for iteration index ``n >= 0``."""

    q: tuple[int, ...]
    d: tuple[int, ...]

    @property
    def period(self) -> int:
        return len(self.q)

    @staticmethod
    def const(value: int) -> Periodic:
        return Periodic((value,), (0,))

    @property
    def constant(self) -> int | None:
        """The value when it never changes, else ``None``."""
        if all(x == 0 for x in self.d) and all(x == self.q[0] for x in self.q):
            return self.q[0]
        return None

    def at(self, n: int) -> int:
        r = n % self.period
        return self.q[r] + self.d[r] * (n // self.period)

    def expand(self, period: int) -> Periodic:
        """The same sequence written with a period that is a multiple of this one."""
        p = self.period
        if period == p:
            return self
        factor = period // p
        q = tuple(self.q[r % p] + self.d[r % p] * (r // p) for r in range(period))
        d = tuple(self.d[r % p] * factor for r in range(period))
        return Periodic(q, d)

    def map2(self, other: Periodic, fn) -> Periodic:
        """Combine residue by residue (``fn((q1, d1), (q2, d2)) -> (q, d)``)."""
        period = lcm(self.period, other.period)
        a, b = self.expand(period), other.expand(period)
        pairs = [fn((a.q[r], a.d[r]), (b.q[r], b.d[r])) for r in range(period)]
        return Periodic(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))

    def scale(self, c: int) -> Periodic:
        return Periodic(tuple(x * c for x in self.q), tuple(x * c for x in self.d))

    def divisible_expansion(self, c: int) -> Periodic:
        """An expansion whose per-period increments are all multiples of ``c``."""
        factor = 1
        for x in self.d:
            factor = lcm(factor, c // math.gcd(x, c))
        return self.expand(self.period * factor)


@dataclass(frozen=True)
class Sym:
    """A symbolic value: ``pa`` (periodic part) plus an ``opaque`` n-independent part, or unknown."""

    pa: Periodic | None
    opaque: bool = False

    @property
    def unknown(self) -> bool:
        return self.pa is None

    @property
    def independent(self) -> bool:
        """Does not depend on the iteration index (but may be opaque)."""
        return self.pa is not None and self.pa.constant is not None

    @property
    def exact(self) -> bool:
        return self.pa is not None and not self.opaque


UNKNOWN = Sym(None)
OPAQUE = Sym(Periodic.const(0), True)


def const(value: int) -> Sym:
    return Sym(Periodic.const(int(value)))


def increment(forms: tuple[Periodic, ...], period: int) -> tuple[int, ...] | None:
    """How far an access moves every ``period`` iterations (``None``: not the same each time)."""
    out = []
    for form in forms:
        d = form.expand(period).d
        if any(x != d[0] for x in d):
            return None
        out.append(d[0])
    return tuple(out)


def lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def add(a: Sym, b: Sym) -> Sym:
    if a.unknown or b.unknown:
        return UNKNOWN
    return Sym(a.pa.map2(b.pa, lambda x, y: (x[0] + y[0], x[1] + y[1])), a.opaque or b.opaque)


def neg(a: Sym) -> Sym:
    return UNKNOWN if a.unknown else Sym(a.pa.scale(-1), a.opaque)


def sub(a: Sym, b: Sym) -> Sym:
    return add(a, neg(b))


def negation(a: Sym) -> Sym:
    if a.unknown:
        return UNKNOWN
    return Sym(Periodic(tuple(1 - x for x in a.pa.q), a.pa.d), a.opaque) if a.exact else a


def mul(a: Sym, b: Sym) -> Sym:
    if a.unknown or b.unknown:
        return UNKNOWN
    for x, y in ((a, b), (b, a)):
        if x.exact and x.pa.constant is not None:
            return Sym(y.pa.scale(x.pa.constant), y.opaque)
    if a.independent and b.independent:
        return OPAQUE
    if a.exact and b.exact:
        period = lcm(a.pa.period, b.pa.period)
        x, y = a.pa.expand(period), b.pa.expand(period)
        if any(x.d[r] and y.d[r] for r in range(period)):
            return UNKNOWN
        return Sym(Periodic(tuple(x.q[r] * y.q[r] for r in range(period)),
                            tuple(x.q[r] * y.d[r] + y.q[r] * x.d[r] for r in range(period))))
    return UNKNOWN


def select(cond: Sym, a: Sym, b: Sym) -> Sym:
    period = lcm(cond.pa.period, lcm(a.pa.period, b.pa.period))
    c, x, y = cond.pa.expand(period), a.pa.expand(period), b.pa.expand(period)
    pick = [x if c.q[r] else y for r in range(period)]
    return Sym(Periodic(tuple(pick[r].q[r] for r in range(period)),
                        tuple(pick[r].d[r] for r in range(period))))
