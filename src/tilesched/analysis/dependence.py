"""Dependences between the ops of a block, and loop-carried dependences of ``scf.for``.

Two accesses conflict when they touch the same root buffer, at least one writes,
and their regions are not provably disjoint (:func:`regions.disjoint`). The kind
follows the classic taxonomy: RAW (true), WAR (anti), WAW (output). An op with
unknown effects (``tile.call``) conflicts with every op that has effects.
Loop-carried dependences compare iteration ``i`` with iteration ``i + d`` by
substituting ``iv -> iv + d * step`` into the later access and report the
smallest such distance ``d``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from math import gcd

from xdsl.dialects import scf
from xdsl.ir import Operation

from tilesched.analysis.effects import Access, Effects, effects_of
from tilesched.analysis.regions import Region, disjoint
from tilesched.ir.affine import Affine, Mod, constant_value

RAW, WAR, WAW, UNKNOWN = "RAW", "WAR", "WAW", "UNKNOWN"


@dataclass(frozen=True)
class Dependence:
    """``dst`` must stay after ``src`` (indices into the op list); ``distance`` in iterations."""

    src: int
    dst: int
    kind: str
    buffer: str
    distance: int = 0


def kind_of(first: Access, second: Access) -> str | None:
    """RAW/WAR/WAW for an ordered pair of conflicting accesses, or None when they commute."""
    if not (first.write or second.write) or _disjoint(first.region, second.region):
        return None
    if first.write and second.write:
        return WAW
    return RAW if first.write else WAR


def _disjoint(a: Region, b: Region) -> bool:
    """:func:`regions.disjoint`, comparing constant intervals as plain integers first (the
    common case: tiles at constant offsets) instead of through affine arithmetic."""
    if a.root is not b.root:
        return True
    symbolic = False
    for x, y in zip(a.dims, b.dims, strict=True):
        sx, sy = x.start, y.start
        if type(sx) is Affine and type(sy) is Affine and not sx.terms and not sy.terms:
            if sy.const >= sx.const + x.size or sx.const >= sy.const + y.size:
                return True
        else:
            symbolic = True
    return symbolic and disjoint(a, b)


def buffer_name(region: Region) -> str:
    hint = region.root.name_hint
    return f"%{hint}" if hint else f"<{region.root.type}>"


def block_dependences(ops: list[Operation]) -> list[Dependence]:
    """All ordered pairs (i < j) of ``ops`` that must not be swapped, one edge per kind.

    Earlier accesses are indexed per root buffer (:class:`_RootAccesses`), so a read is only
    compared with earlier writes, and a region with constant offsets only with earlier
    regions whose first-dimension interval overlaps it (plus every symbolic one); two
    constant regions are compared as boxes. The cost follows the number of conflicts, not
    the square of the block's length.
    """
    effects = [effects_of(op) for op in ops]
    by_root: dict[object, _RootAccesses] = {}
    found: dict[tuple[int, int, str], Dependence] = {}
    effectful: list[int] = []   # ops with accesses or unknown effects, in order
    unknown: list[int] = []     # ops with unknown effects, in order
    for j, eff in enumerate(effects):
        if eff.unknown:
            for i in effectful:
                found.setdefault((i, j, UNKNOWN), Dependence(i, j, UNKNOWN, "*"))
        boxes = [_box(access) for access in eff.accesses]
        for access, box in zip(eff.accesses, boxes, strict=True):
            index = by_root.get(access.region.root)
            if index is None:
                continue
            for i, earlier, earlier_box in index.candidates(access, box):
                kind = _box_kind(earlier, earlier_box, access, box)
                if kind and (i, j, kind) not in found:
                    found[(i, j, kind)] = Dependence(i, j, kind, buffer_name(access.region))
        if eff.accesses:
            for i in unknown:
                found.setdefault((i, j, UNKNOWN), Dependence(i, j, UNKNOWN, "*"))
        for access, box in zip(eff.accesses, boxes, strict=True):
            by_root.setdefault(access.region.root, _RootAccesses()).add(j, access, box)
        if eff.unknown:
            unknown.append(j)
        if eff.accesses or eff.unknown:
            effectful.append(j)
    return [found[key] for key in sorted(found)]  # by (src, dst, kind)


def _box_kind(first: Access, first_box, second: Access, second_box) -> str | None:
    """:func:`kind_of`, with a shortcut when both regions are constant boxes."""
    if first_box is None or second_box is None:
        return kind_of(first, second)
    if not (first.write or second.write):
        return None
    for (s1, e1), (s2, e2) in zip(first_box, second_box, strict=True):
        if s2 >= e1 or s1 >= e2:
            return None
    if first.write and second.write:
        return WAW
    return RAW if first.write else WAR


class _RootAccesses:
    """Earlier accesses of one root buffer, split by read/write and by constant/symbolic region.

    Constant regions are kept sorted by the start of their first dimension; two constant
    regions whose first-dimension intervals do not overlap are disjoint, so only those that
    overlap are compared. Symbolic regions are always candidates.
    """

    def __init__(self) -> None:
        self.starts = ([], [])     # per write flag: sorted first-dimension starts
        self.constant = ([], [])   # per write flag: (index, access, box), same order
        self.longest = [0, 0]      # per write flag: longest first-dimension interval
        self.symbolic = ([], [])   # per write flag: (index, access, None)

    def add(self, index: int, access: Access, box) -> None:
        kind = int(access.write)
        if box is None:
            self.symbolic[kind].append((index, access, None))
            return
        start, end = box[0]
        position = bisect_right(self.starts[kind], start)
        self.starts[kind].insert(position, start)
        self.constant[kind].insert(position, (index, access, box))
        self.longest[kind] = max(self.longest[kind], end - start)

    def candidates(self, access: Access, box) -> list:
        """Earlier ``(index, access, box)`` entries that may conflict with ``access``."""
        found = []
        for kind in ((0, 1) if access.write else (1,)):
            found.extend(self.symbolic[kind])
            if box is None:
                found.extend(self.constant[kind])
                continue
            start, end = box[0]
            low = bisect_right(self.starts[kind], start - self.longest[kind])
            high = bisect_left(self.starts[kind], end)
            found.extend(self.constant[kind][low:high])
        return found


def _box(access: Access) -> tuple[tuple[int, int], ...] | None:
    """``[start, end)`` per dimension when every start is a constant (and there is one), else None."""
    dims = access.region.dims
    if not dims or not all(isinstance(d.start, Affine) and d.start.is_constant for d in dims):
        return None
    return tuple((d.start.const, d.start.const + d.size) for d in dims)


def loop_carried_dependences(loop: scf.ForOp, limit: int | None = None) -> list[Dependence]:
    """Dependences from iteration ``i`` to ``i + d`` (``d >= 1``) between the body's ops.

    Indices refer to ``list(loop.body.block.ops)``; for each pair and kind the
    smallest distance is reported, solved exactly per dimension (linear offsets
    give an interval of conflicting distances, slots a congruence) rather than
    by trying distances one by one. With a constant trip count ``T`` only
    distances below ``T`` exist; ``limit`` overrides that bound (a loop whose next run
    continues where this one stopped, as insert-sync threads an inner loop's flags).
    """
    ops = list(loop.body.block.ops)
    effects = [effects_of(op) for op in ops]
    limit = distance_limit(loop) if limit is None else limit
    found: dict[tuple[int, int, str], Dependence] = {}
    for i, first in enumerate(effects):
        for j, second in enumerate(effects):
            for dep in _carried_pair(i, first, j, second, loop, limit):
                key = (dep.src, dep.dst, dep.kind)
                if key not in found or found[key].distance > dep.distance:
                    found[key] = dep
    return sorted(found.values(), key=lambda d: (d.distance, d.src, d.dst, d.kind))


def carried_conflict(first: Operation, second: Operation, loop: scf.ForOp) -> bool:
    """Can ``first`` at an iteration of ``loop`` conflict with ``second`` at a later one? The
    ops may be nested deeper in the body: values defined inside the body are then unknown."""
    found = _carried_pair(0, effects_of(first), 1, effects_of(second), loop, distance_limit(loop))
    return next(iter(found), None) is not None


def _carried_pair(i: int, first: Effects, j: int, second: Effects, loop: scf.ForOp, limit: int):
    if first.unknown or second.unknown:
        if limit >= 1 and (first.accesses or first.unknown) and (second.accesses or second.unknown):
            yield Dependence(i, j, UNKNOWN, "*", 1)
        return
    for a in first.accesses:
        for b in second.accesses:
            if a.region.root is not b.region.root or not (a.write or b.write):
                continue
            distance = min_conflict_distance(a.region, b.region, loop, limit)
            if distance is not None:
                kind = WAW if a.write and b.write else (RAW if a.write else WAR)
                yield Dependence(i, j, kind, buffer_name(a.region), distance)


def min_conflict_distance(a: Region, b: Region, loop: scf.ForOp, limit: int) -> int | None:
    """Smallest ``d`` in ``[1, limit]`` such that ``a`` at iteration ``i`` may overlap ``b`` at ``i + d``."""
    iv = loop.body.block.args[0]
    step = constant_value(loop.step)
    low, high = 1, limit
    congruences: list[tuple[int, int, int]] = []  # (offset, slope, modulus): (offset + slope*d) % m == 0
    for x, y in zip(a.dims, b.dims, strict=True):
        if step is None:
            continue  # symbolic step: nothing is provable along this dimension
        constraint = _dimension_constraint(x, y, iv, step)
        if constraint is None:
            continue
        kind, data = constraint
        if kind == "never":
            return None
        if kind == "range":
            low, high = max(low, data[0]), min(high, data[1])
        else:
            congruences.append(data)
        if low > high:
            return None
    period = 1
    for _, _, modulus in congruences:
        period = period * modulus // gcd(period, modulus)
    for d in range(low, min(high, low + period - 1) + 1):
        if all((off + slope * d) % m == 0 for off, slope, m in congruences):
            return d
    return None


def _dimension_constraint(x, y, iv, step: int):
    """Distances at which intervals ``x`` (iteration i) and ``y`` (iteration i+d) overlap.

    Returns None (no information: any distance), ("never", None), ("range", (lo, hi))
    or ("congruence", (offset, slope, modulus)).
    """
    if isinstance(x.start, Affine) and isinstance(y.start, Affine):
        base = y.start - x.start
        if not base.is_constant:
            return None
        slope = y.start.coeff(iv) * step
        return _linear_overlap(base.const, slope, x.size, y.size)
    if (isinstance(x.start, Mod) and isinstance(y.start, Mod) and x.start.modulus == y.start.modulus
            and x.size == 1 and y.size == 1):
        base = y.start.base - x.start.base
        if not base.is_constant:
            return None
        return ("congruence", (base.const, y.start.base.coeff(iv) * step, x.start.modulus))
    return None


def _linear_overlap(base: int, slope: int, size_x: int, size_y: int):
    """Integer ``d`` with ``-size_y < base + slope * d < size_x``."""
    if slope == 0:
        return None if -size_y < base < size_x else ("never", None)
    lo_value, hi_value = -size_y + 1, size_x - 1  # base + slope*d in [lo_value, hi_value]
    if slope > 0:
        lo, hi = ceil_div(lo_value - base, slope), (hi_value - base) // slope
    else:
        lo, hi = ceil_div(base - hi_value, -slope), (base - lo_value) // -slope
    return ("range", (lo, hi))


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def distance_limit(loop: scf.ForOp) -> int:
    """Largest possible iteration distance: trip count - 1, or unbounded."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if None not in (lb, ub, step) and step > 0:
        return max(0, (ub - lb + step - 1) // step - 1)
    return 1 << 40
