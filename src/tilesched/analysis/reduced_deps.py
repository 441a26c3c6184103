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

from bisect import bisect_left, bisect_right
from collections import defaultdict

from xdsl.ir import Operation

from tilesched.analysis.affine import Affine
from tilesched.analysis.dependence import UNKNOWN, Dependence, _box, buffer_name, kind_of
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


class _LiveIndex:
    """Live accesses of one root buffer, split by read/write; constant regions are kept
    sorted by the start of their first dimension, so only overlapping ones are visited."""

    def __init__(self) -> None:
        self.keys = ([], [])      # per write flag: sorted (first start, op index, serial)
        self.entries = ([], [])   # per write flag: (op index, access, box), same order
        self.longest = [0, 0]
        self.symbolic = ([], [])  # per write flag: (op index, access, None)
        self.serial = 0

    def add(self, index: int, access: Access, box) -> None:
        kind = int(access.write)
        if box is None:
            self.symbolic[kind].append((index, access, None))
            return
        self.serial += 1
        key = (box[0][0], index, self.serial)
        position = bisect_right(self.keys[kind], key)
        self.keys[kind].insert(position, key)
        self.entries[kind].insert(position, (index, access, box))
        self.longest[kind] = max(self.longest[kind], box[0][1] - box[0][0])

    def candidates(self, box, kinds) -> list[tuple[int, int, Access, object]]:
        """``(kind, position, ...)`` of entries that may overlap ``box`` (None: any)."""
        found = []
        for kind in kinds:
            found.extend((kind, -1, *entry) for entry in self.symbolic[kind])
            if box is None:
                found.extend((kind, p, *e) for p, e in enumerate(self.entries[kind]))
                continue
            start, end = box[0]
            low = bisect_left(self.keys[kind], (start - self.longest[kind] + 1,))
            high = bisect_left(self.keys[kind], (end,))
            found.extend((kind, p, *self.entries[kind][p]) for p in range(low, high))
        return found

    def retire(self, covered: list[tuple[int, int, Access, object]]) -> None:
        """Drop entries (as returned by :meth:`candidates`) that a later write covers."""
        for kind, position, _, access, _ in sorted(covered, key=lambda c: -c[1]):
            if position < 0:
                self.symbolic[kind][:] = [e for e in self.symbolic[kind] if e[1] is not access]
            else:
                del self.keys[kind][position]
                del self.entries[kind][position]


def reduced_dependences(ops: list[Operation]) -> list[Dependence]:
    """Edges whose transitive closure equals that of ``block_dependences(ops)``.

    Near-linear: each access visits only the live accesses whose first-dimension interval
    overlaps it, and each access is retired at most once.
    """
    live: dict[object, _LiveIndex] = defaultdict(_LiveIndex)
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
        boxes = [_box(access) for access in effects.accesses]
        for access, box in zip(effects.accesses, boxes, strict=True):
            kinds = (0, 1) if access.write else (1,)
            for _, _, i, earlier, _ in live[access.region.root].candidates(box, kinds):
                kind = kind_of(earlier, access)
                if kind and i != j:
                    found.setdefault((i, j, kind), Dependence(i, j, kind, buffer_name(access.region)))
        for access, box in zip(effects.accesses, boxes, strict=True):
            index = live[access.region.root]
            if access.write:
                index.retire([c for c in index.candidates(box, (0, 1))
                              if c[2] != j and covers(access.region, c[3].region)])
            index.add(j, access, box)
    return sorted(found.values(), key=lambda d: (d.src, d.dst, d.kind))
