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

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.dependence import (
    RAW,
    UNKNOWN,
    WAR,
    WAW,
    Dependence,
    _disjoint,
    buffer_name,
)
from tilesched.analysis.effects import effects_of, tile_accesses
from tilesched.analysis.regions import Region, root_region
from tilesched.ir.affine import Affine
from tilesched.ir.tile import SlotOp
from tilesched.ir.types import memref_shape


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
    """Live accesses of one root buffer, split by read (0) / write (1). Constant regions are
    kept sorted by the start of their first dimension, so only overlapping ones are visited.

    An entry is ``(op index, region, box, inside)``; ``box`` is the constant ``[start, end)``
    per dimension, or None for a symbolic region (kept apart: it may overlap anything);
    ``inside``: the box lies within the root (a write of the whole root covers it).
    """

    __slots__ = ("starts", "entries", "longest", "symbolic")

    def __init__(self) -> None:
        self.starts = ([], [])    # per kind: sorted first-dimension starts
        self.entries = ([], [])   # per kind: entries, same order
        self.longest = [0, 0]     # per kind: longest first-dimension interval
        self.symbolic = ([], [])  # per kind: entries with a symbolic region

    def add(self, kind: int, entry: tuple) -> None:
        box = entry[2]
        if box is None:
            self.symbolic[kind].append(entry)
            return
        start, end = box[0]
        position = bisect_right(self.starts[kind], start)
        self.starts[kind].insert(position, start)
        self.entries[kind].insert(position, entry)
        if end - start > self.longest[kind]:
            self.longest[kind] = end - start

    def overlapping(self, box, kind: int) -> list[tuple[int, tuple]]:
        """``(position, entry)`` of the entries of ``kind`` that may overlap ``box``; position
        -1 marks a symbolic entry."""
        entries, symbolic = self.entries[kind], self.symbolic[kind]
        if box is None:
            found = list(enumerate(entries))
        elif entries:
            start, end = box[0]
            starts = self.starts[kind]
            low = bisect_left(starts, start - self.longest[kind] + 1)
            high = bisect_left(starts, end, low)
            found = list(zip(range(low, high), entries[low:high], strict=True))
        else:
            found = []
        if symbolic:
            found[:0] = [(-1, entry) for entry in symbolic]
        return found

    def retire(self, kind: int, covered: list[tuple[int, tuple]]) -> None:
        """Drop entries (as returned by :meth:`overlapping`) that a later write covers."""
        for position, entry in sorted(covered, key=lambda c: -c[0]):
            if position < 0:
                self.symbolic[kind].remove(entry)
            else:
                del self.starts[kind][position]
                del self.entries[kind][position]


def reduced_dependences(ops: list[Operation]) -> list[Dependence]:
    """Edges whose transitive closure equals that of ``block_dependences(ops)``.

    Near-linear: each access visits only the live accesses whose first-dimension interval
    overlaps it, and each access is retired at most once.
    """
    found: dict[tuple[int, int, str], Region | None] = {}
    _reduce(ops, lambda i, j, kind, region: found.setdefault((i, j, kind), region))
    return [Dependence(i, j, kind, "*" if kind == UNKNOWN else buffer_name(region))
            for (i, j, kind), region in sorted(found.items(), key=lambda item: item[0])]


def reduced_edges(ops: list[Operation]) -> list[tuple[int, int]]:
    """The ``(src, dst)`` pairs of :func:`reduced_dependences`, each once, sorted."""
    succs = _reduce(ops, None)
    return [(i, j) for i, later in enumerate(succs) for j in later]


def _reduce(ops: list[Operation], record) -> list[list[int]]:
    """Find the reduced dependences: ``record(src, dst, kind, region)`` for each (the later
    access's region, None for unknown effects), or, without ``record``, the successors of
    each op, each once and ascending (edges come out sorted without sorting them)."""
    live: dict[int, _LiveIndex] = {}  # id(root) -> its live accesses
    described = _Described()
    last_unknown: int | None = None
    since_unknown: list[int] = []
    succs: list[list[int]] = [[] for _ in ops] if record is None else []
    for j, op in enumerate(ops):
        accesses = described.accesses(op)
        if accesses is None:  # unknown effects: ordered after everything, before everything
            for i in since_unknown + ([last_unknown] if last_unknown is not None else []):
                record(i, j, UNKNOWN, None) if record else succs[i].append(j)
            last_unknown, since_unknown = j, []
            live.clear()
            continue
        if not accesses:
            continue
        sources: set[int] = set()  # edges-only: the sources of j's edges
        if last_unknown is not None:
            record(last_unknown, j, UNKNOWN, None) if record else sources.add(last_unknown)
        since_unknown.append(j)
        retired: dict[tuple[int, int], tuple[_LiveIndex, int, list]] = {}
        for root_id, region, box, full, _, write in accesses:
            index = live.get(root_id)
            if index is None:
                continue
            for kind in ((0, 1) if write else (1,)):
                candidates = index.overlapping(box, kind)
                if not candidates:
                    continue
                for _, (i, earlier, earlier_box, _) in candidates:
                    if record is None and earlier_box is not None and box is not None:
                        if _boxes_overlap(earlier_box, box):  # the usual case, in short
                            sources.add(i)
                        continue
                    conflict = _conflict(kind, earlier, earlier_box, write, region, box)
                    if conflict is None:
                        continue
                    if record:
                        record(i, j, conflict, region)
                    else:
                        sources.add(i)
                if write:
                    _note_covered(retired, index, kind, region, full, candidates)
        for index, kind, covered in retired.values():
            index.retire(kind, covered)
        for root_id, region, box, _, inside, write in accesses:
            index = live.get(root_id)
            if index is None:
                index = live[root_id] = _LiveIndex()
            index.add(int(write), (j, region, box, inside))
        for i in sources:
            succs[i].append(j)
    return succs


class _Described:
    """Each op's accesses as ``(id(root), region, box, full, inside, write)``, with the region,
    its constant box (or None), whether it is the whole root and whether it lies within the
    root computed once per operand value
    (a block reuses a few buffers many times)."""

    def __init__(self) -> None:
        self.values: dict[int, tuple] = {}   # id(value) -> see _value
        self.regions: dict[SSAValue, Region] = {}
        self.by_region: dict[int, tuple] = {}  # id(region) -> (region kept alive, description)
        self.slots: dict[tuple[SSAValue, SSAValue], tuple] = {}  # (source, index) -> description

    def accesses(self, op: Operation) -> list[tuple] | None:
        """The accesses of ``op``, or None when its effects are unknown."""
        pairs = tile_accesses(op)
        if pairs is not None:
            reads, written = pairs
            values = self.values
            found = [(values.get(id(v)) or self._value(v))[1] for v in reads]
            found.append((values.get(id(written)) or self._value(written))[2])
            return found
        effects = effects_of(op, self.regions)
        if effects.unknown:
            return None
        found = []
        for access in effects.accesses:
            known = self.by_region.get(id(access.region))
            if known is None:
                known = self.by_region[id(access.region)] = (access.region,
                                                             self._describe(access.region))
            found.append(known[1] + (access.write,))
        return found

    def _value(self, value: SSAValue) -> tuple:
        """``(value kept alive, its read access, its write access)``, remembered. Slots of one
        buffer at one index share their description (a block slices a few buffers at a few
        indices, over and over)."""
        owner = value.owner
        if isinstance(owner, SlotOp):
            key = (owner.source, owner.index)
            described = self.slots.get(key)
            if described is None:
                described = self.slots[key] = self._describe(root_region(value))
        else:
            described = self._describe(root_region(value))
        known = self.values[id(value)] = (value, described + (False,), described + (True,))
        return known

    @staticmethod
    def _describe(region: Region) -> tuple:
        dims = region.dims
        box = None
        if dims and all(type(d.start) is Affine and not d.start.terms for d in dims):
            box = tuple((d.start.const, d.start.const + d.size) for d in dims)
        shape = memref_shape(region.root.type) if isinstance(region.root.type, MemRefType) \
            else None
        full = box is not None and shape is not None and box == tuple((0, n) for n in shape)
        inside = box is not None and shape is not None and len(shape) == len(box) and \
            all(start >= 0 and end <= n for (start, end), n in zip(box, shape, strict=True))
        return (id(region.root), region, box, full, inside)


def _boxes_overlap(first, second) -> bool:
    """Do two constant boxes (``[start, end)`` per dimension, same root) share an element?"""
    for (s1, e1), (s2, e2) in zip(first, second, strict=True):
        if s2 >= e1 or s1 >= e2:
            return False
    return True


def _conflict(earlier_write: int, earlier: Region, earlier_box, write: bool, region: Region,
              box) -> str | None:
    """RAW / WAR / WAW for an earlier access and a later one (at least one writes)."""
    if earlier_box is not None and box is not None:
        if not _boxes_overlap(earlier_box, box):
            return None
    elif _disjoint(earlier, region):
        return None
    if earlier_write:
        return WAW if write else RAW
    return WAR


def _note_covered(retired: dict, index: _LiveIndex, kind: int, region: Region, full: bool,
                  candidates: list[tuple[int, tuple]]) -> None:
    """Add the candidates ``region`` covers to what op's writes retire, each entry once
    (a ``full`` region, the whole root, covers every constant box inside the root)."""
    if full:
        covered = [c for c in candidates if c[1][3]]
    else:
        covered = [c for c in candidates if covers(region, c[1][1])]
    if not covered:
        return
    slot = retired.get((id(index), kind))
    if slot is None:
        retired[(id(index), kind)] = (index, kind, covered)
    else:  # an op writing twice into one buffer
        seen = {id(c[1]) for c in slot[2]}
        slot[2].extend(c for c in covered if id(c[1]) not in seen)
