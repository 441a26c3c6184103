"""Dependences of a block up to transitivity, in near-linear time.

:func:`block_dependences` lists every ordered conflicting pair, which is quadratic in the
number of accesses to one buffer. Passes that only need the *order* to be kept (insert-sync:
happens-before is transitive) can use this reduction instead: an earlier access that a later
*write* covers entirely (same root, a region containing it) is retired, because anything that
conflicts with it afterwards also conflicts with the covering write, which is ordered after it.
Each buffer thus keeps its last writes and the reads since: the classic "last writer + readers"
rule, generalized to regions. The result has the same transitive closure as
:func:`block_dependences` (a test checks this on random blocks).
"""

from __future__ import annotations

from collections import defaultdict

from xdsl.ir import Operation

from tilesched.analysis.affine import Affine
from tilesched.analysis.dependence import UNKNOWN, Dependence, buffer_name, kind_of
from tilesched.analysis.effects import Access, effects_of
from tilesched.analysis.regions import Region


def covers(outer: Region, inner: Region) -> bool:
    """True only when ``outer`` provably contains every element of ``inner``."""
    if outer.root is not inner.root:
        return False
    for big, small in zip(outer.dims, inner.dims, strict=True):
        if type(big.start) is Affine and type(small.start) is Affine and not big.start.terms \
                and not small.start.terms:  # fast path: constant offsets
            offset = small.start.const - big.start.const
            if offset < 0 or offset + small.size > big.size:
                return False
            continue
        if not (isinstance(big.start, Affine) and isinstance(small.start, Affine)):
            if big.start != small.start or big.size < small.size:
                return False
            continue
        delta = small.start - big.start
        if not delta.is_constant or delta.const < 0 or delta.const + small.size > big.size:
            return False
    return True


def reduced_dependences(ops: list[Operation]) -> list[Dependence]:
    """Edges whose transitive closure equals that of ``block_dependences(ops)``."""
    live: dict[object, list[tuple[int, Access]]] = defaultdict(list)
    found: dict[tuple[int, int, str], Dependence] = {}
    last_unknown: int | None = None
    since_unknown: list[int] = []
    for j, op in enumerate(ops):
        effects = effects_of(op)
        if effects.unknown:
            for i in since_unknown + ([last_unknown] if last_unknown is not None else []):
                found.setdefault((i, j, UNKNOWN), Dependence(i, j, UNKNOWN, "*"))
            last_unknown, since_unknown = j, []
            live.clear()
            continue
        if not effects.accesses:
            continue
        if last_unknown is not None:
            found.setdefault((last_unknown, j, UNKNOWN), Dependence(last_unknown, j, UNKNOWN, "*"))
        since_unknown.append(j)
        for access in effects.accesses:
            for i, earlier in live[access.region.root]:
                if not (earlier.write or access.write):
                    continue  # two reads commute
                kind = kind_of(earlier, access)
                if kind and i != j:
                    found.setdefault((i, j, kind), Dependence(i, j, kind, buffer_name(access.region)))
        for access in effects.accesses:
            entries = live[access.region.root]
            if access.write:
                entries[:] = [(i, a) for i, a in entries if i == j or not covers(access.region, a.region)]
            entries.append((j, access))
    return sorted(found.values(), key=lambda d: (d.src, d.dst, d.kind))
