# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Native versions of the instruction producers' per-op loops (optional, see ``setup.py``).

Each function here is line for line the pure-Python loop it replaces, compiled (typed locals, no
interpreter dispatch); what happens once per static op or per new pair stays in Python and is
called back. The pure-Python loops are the reference: ``TILESCHED_PURE_PYTHON=1`` uses them, and
``tests/sim/code/test_sim_producers.py`` compares both with the original producers.

- :func:`chunk_code` is :meth:`chunk_compiler.GroupCompiler.code`;
- :func:`moved_ops` is :meth:`replay.LoopReplay._moved` with a known plan;
- :func:`issuer_code` is ``InstructionCompiler.issuer_code`` with memory operands
  (``compile_trace``), tile ops translated inline.
"""

from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

import types

from tilesched.sim import isa
from tilesched.sim.trace import SYNC_OPS, Access, TraceOp
from tilesched.sim.native.source_hash cimport TILESCHED_SOURCE_HASH

SOURCE_HASH = TILESCHED_SOURCE_HASH.decode()  # what it was built from (native/sources.py)


cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member


# Fields of the slotted dataclasses TraceOp and Access are read straight from their slots (the
# offsets their member descriptors give): the loops below read ten of them per op, and the
# generic attribute lookup is most of their cost otherwise. An object whose type is not exactly
# the class (or a field that is not a plain object slot, offset -1) is read with getattr.

cdef Py_ssize_t _slot_offset(object cls, str field) except -2:
    """Byte offset of the ``__slots__`` field ``field`` of ``cls`` (-1: not a plain slot)."""
    desc = cls.__dict__.get(field)
    if type(desc) is not types.MemberDescriptorType:
        return -1
    cdef PyMemberDef* member = (<PyMemberDescrObject*><PyObject*>desc).d_member
    return member.offset if member.type == 16 else -1  # T_OBJECT_EX


cdef inline object _read(object obj, Py_ssize_t offset, str field):
    """``getattr(obj, field)``, from the slot at ``offset`` when it is one (and set)."""
    cdef PyObject* value
    if offset >= 0:
        value = (<PyObject**>((<char*><PyObject*>obj) + offset))[0]
        if value != NULL:
            return <object>value
    return _getattr(obj, field)


cdef object _getattr(object obj, str field):
    return getattr(obj, field)


cdef struct _OpFields:
    Py_ssize_t name, unit, duration, operands, props, loc, async_queue, lds

cdef _OpFields _OP, _ANY_OP
_OP.name, _OP.unit, _OP.duration = (_slot_offset(TraceOp, "name"), _slot_offset(TraceOp, "unit"),
                                    _slot_offset(TraceOp, "duration"))
_OP.operands, _OP.props, _OP.loc = (_slot_offset(TraceOp, "operands"),
                                    _slot_offset(TraceOp, "props"), _slot_offset(TraceOp, "loc"))
_OP.async_queue, _OP.lds = _slot_offset(TraceOp, "async_queue"), _slot_offset(TraceOp, "lds")
_ANY_OP.name = _ANY_OP.unit = _ANY_OP.duration = _ANY_OP.operands = -1
_ANY_OP.props = _ANY_OP.loc = _ANY_OP.async_queue = _ANY_OP.lds = -1
cdef Py_ssize_t _BUFFER = _slot_offset(Access, "buffer")  # (read after ``type(a) is Access``)
cdef Py_ssize_t _REGION = _slot_offset(Access, "region")
cdef Py_ssize_t _SHAPE = _slot_offset(Access, "shape")


def chunk_code(object group, object chunk, object ref, object stride):
    """The instructions of one chunk for one issuer group, op references from ``ref``.

    Python twin: ``tilesched.sim.code.chunk_compiler.GroupCompiler._code``."""
    cdef list code = []
    cdef object item = isa.TILE
    cdef dict seen = group.seen
    cdef dict tiles = group.tiles
    cdef list violations = group.compiler.violations
    cdef tuple pair
    cdef object known
    for pair in chunk.ops:
        known = seen.get(<size_t><PyObject*>pair)  # id(pair)
        if known is None or (<tuple>known)[0] is not pair:
            tile = tiles.get(pair[0])
            if tile is None:
                known = group._learn(pair)
            else:  # a new pair of a known tile op (GroupCompiler._learn)
                known = group._keep(pair, (pair, (<tuple>tile)[0], (<tuple>tile)[1],
                                           (<tuple>tile)[2], (<tuple>tile)[3].accesses(pair[1])))
        if (<tuple>known)[1] is None:  # a sync op: (pair, None, make, violations)
            if (<tuple>known)[3]:
                violations.extend((<tuple>known)[3])
            if (<tuple>known)[2] is not None:
                code.append((<tuple>known)[2](ref + pair[0]))
        else:  # a tile op: (pair, kind, target, duration, accesses)
            code.append(((<tuple>known)[1], (<tuple>known)[2],
                         (item, (<tuple>known)[3], ref + pair[0], (<tuple>known)[4])))
        ref = ref + stride
    if chunk.mark is not None:
        kind, frame, n = chunk.mark
        code.append((isa.MARK, kind, frame.loop, n, frame))
    return code


def moved_ops(list ops, tuple plan):
    """``ops`` one period later, moved as ``plan`` says (a known plan).

    Python twin: ``tilesched.sim.lowering.replay.LoopReplay._moved``."""
    cdef list out = list(ops)
    cdef list moved, bounds
    cdef tuple operands, moves, dims, entry
    cdef Py_ssize_t position
    for entry in plan:
        position, moves = entry
        sid, operands = ops[position]
        moved = list(operands)
        for k, dims in moves:
            buf, region = operands[k]
            bounds = list(region)
            for dim, step in dims:
                lo, hi = bounds[dim]
                bounds[dim] = (lo + step, hi + step)
            moved[k] = (buf, tuple(bounds))
        out[position] = (sid, tuple(moved))
    return out


def issuer_code(object tiles, object syncs, list ops, Py_ssize_t base):
    """The instructions of one issuer group's ops, with memory operands.

    Python twin: ``tilesched.sim.code.program.InstructionCompiler.issuer_code`` (with
    ``_TileTranslator.translate``, ``_TileTranslator.translate``, ``_accesses`` and
    ``_group_accesses``, ``_SyncTranslator.translate``); ``tiles`` is the group's
    ``_TileTranslator``, ``syncs`` its ``_SyncTranslator``."""
    cdef list body = []
    cdef object tile = isa.TILE
    cdef dict routes = tiles.routes
    cdef dict by_unit = {}  # unit -> (async queue, LDS flag, route): the last route of the unit
    cdef list ranks = tiles.ranks
    cdef set written = tiles.written
    cdef set used
    cdef bint accum
    cdef object sync_ops = SYNC_OPS
    cdef dict by_loc = syncs.by_loc
    cdef list violations = syncs.compiler.violations
    cdef Py_ssize_t index = base - 1
    cdef tuple route, known, last
    cdef bint single = tiles.compiler.groups == 1
    cdef _Group group = None if single else _Group(tiles)
    cdef _Memo memo = _Memo(not single)
    cdef _OpFields* f
    for op in ops:
        index += 1
        f = &_OP if type(op) is TraceOp else &_ANY_OP
        name = _read(op, f.name, "name")
        if name in sync_ops:
            known = _known_sync(syncs, by_loc, op, name, _read(op, f.loc, "loc"),
                                _read(op, f.props, "props"))
            if known[3]:
                violations.extend(known[3])
            if known[4] is not None:
                body.append(_instance(<tuple>known[4], index))
            continue
        duration = _read(op, f.duration, "duration")
        unit = _read(op, f.unit, "unit")
        queue, lds = _read(op, f.async_queue, "async_queue"), _read(op, f.lds, "lds")
        last = by_unit.get(unit)
        if last is not None and last[0] is queue and last[1] is lds:
            route = <tuple>last[2]
        else:
            route = routes.get((unit, queue, lds))
            if route is not None:
                by_unit[unit] = (queue, lds, route)
        if route is None or not isinstance(duration, int) or duration < 0:
            route = tiles._route(op)
        used = route[2]
        accum = name == "tile.matmul" and bool(_read(op, f.props, "props").get("accumulate"))
        loc, operands = _read(op, f.loc, "loc"), _read(op, f.operands, "operands")
        accesses = memo.find(loc, name, accum, used, operands)
        if accesses is None:
            if single:
                accesses = _single_accesses(tiles, op, name, accum, used, ranks, written, loc,
                                            operands, memo)
            else:
                accesses = group.translate(op, name, accum, used, loc, operands, memo)
            memo.keep(loc, name, accum, used, operands, accesses)
        body.append((route[0], route[1], (tile, duration, index, accesses)))
    return body


cdef tuple _single_accesses(object tiles, object op, object name, bint accum, set used,
                            list ranks, set written, object loc, object operands, _Memo memo):
    """``_TileTranslator._accesses``: the access tuples of a single issuer group's tile op
    (reads, then the written last operand; every operand of ``tile.call`` written)."""
    cdef list bufs = [], regions = [], out = []
    cdef Py_ssize_t n, k
    cdef bint call = name == "tile.call", write
    for a in operands:
        if type(a) is Access:
            buf, region = _read(a, _BUFFER, "buffer"), _read(a, _REGION, "region")
            if not 0 <= buf < len(ranks) or ranks[buf] != len(region):
                tiles._checked(op, a)
            used.add(buf)
            bufs.append(buf)
            regions.append(region)
    n = len(bufs)
    for k in range(n):
        write = call or k == n - 1
        if write:
            written.add(bufs[k])
        if write and accum and not call:  # the accumulated destination: read, then written
            out.append(memo.access(loc, k, bufs[k], regions[k], False))
            out.append(memo.access(loc, k + 1, bufs[k], regions[k], True))
        else:
            out.append(memo.access(loc, k, bufs[k], regions[k], write))
    return tuple(out)


cdef class _Memo:
    """The access tuples of the last few tile ops at each location, reused (the same tuple
    objects) for a later op there with equal operands: an unrolled loop's ops repeat their
    operands every few iterations, and the engine and the bound read recurring tuples from
    cache. What ``_TileTranslator`` computes from an op's memref operands depends only on their
    buffers, regions (and shapes, with several groups), the op's name and ``accumulate``, its
    location and the group; an entry also names the set of buffers its running agent uses, so a
    hit has nothing left to note. Locations whose ops never repeat stop being remembered; when
    fewer than one op in ``RARE_HITS`` of a window of ``WINDOW`` ops finds its accesses (a trace
    whose every op has its own location), the memo rests for ``REST`` ops (it would only cost)."""

    cdef dict by_loc  # loc -> [misses, entries...], entries (name, accum, used, operands, accesses)
    cdef dict parts  # loc -> per operand position [misses, access tuples...]
    cdef bint shapes
    cdef Py_ssize_t looked, hits, resting  # ops looked up and found in this window; ops to rest

    def __init__(self, bint shapes):
        self.by_loc, self.parts = {}, {}
        self.shapes = shapes
        self.looked = self.hits = self.resting = 0

    cdef object find(self, object loc, object name, bint accum, set used, object operands):
        """The kept accesses of an op with these operands at ``loc``, or ``None``."""
        cdef list kept
        cdef Py_ssize_t k
        cdef tuple entry
        if self.resting:
            self.resting -= 1
            return None
        self.looked += 1
        if self.looked == WINDOW:
            if self.hits * RARE_HITS < WINDOW:
                self.resting = REST
                self.by_loc.clear()
                self.parts.clear()
            self.looked = self.hits = 0
        kept = self.by_loc.get(loc)
        if kept is None or type(operands) is not tuple:
            return None
        for k in range(1, len(kept)):
            entry = <tuple>kept[k]
            if (entry[2] is used and entry[0] == name and <bint>entry[1] == accum
                    and _same_operands(<tuple>entry[3], <tuple>operands, self.shapes)):
                if kept[0] is not _ZERO:
                    kept[0] = _ZERO  # a hit: the location's ops do repeat
                self.hits += 1
                return entry[4]
        return None

    cdef int keep(self, object loc, object name, bint accum, set used, object operands,
                  tuple accesses) except -1:
        """Remember the accesses of an op (the oldest of the location's entries goes)."""
        cdef list kept
        if type(operands) is not tuple or self.resting:
            return 0
        kept = self.by_loc.get(loc)
        if kept is None:
            if len(self.by_loc) >= MEMO_LOCATIONS:  # locations that do not recur: start over
                self.by_loc.clear()
            kept = self.by_loc[loc] = [0]
        return _remember(kept, (name, accum, used, operands, accesses))

    cdef tuple access(self, object loc, Py_ssize_t position, object buf, object region,
                      bint write):
        """The access tuple ``(buf, region, write, (region, loc))``: one made before for the
        operand at ``position`` of an op at ``loc`` when equal (an op missing ``find`` often
        has most operands of an earlier op there), else a new one."""
        cdef list lists
        cdef list kept
        cdef tuple entry
        cdef Py_ssize_t k
        if self.resting:
            return (buf, region, write, (region, loc))
        lists = self.parts.get(loc)
        if lists is None:
            if len(self.parts) >= MEMO_LOCATIONS:
                self.parts.clear()
            lists = self.parts[loc] = []
        while len(lists) <= position:
            lists.append([0])
        kept = <list>lists[position]
        for k in range(1, len(kept)):
            entry = <tuple>kept[k]
            if <bint>entry[2] == write and _equal(entry[0], buf) and _same_region(entry[1], region):
                if kept[0] is not _ZERO:
                    kept[0] = _ZERO
                return entry
        entry = (buf, region, write, (region, loc))
        _remember(kept, entry)
        return entry


cdef object _ZERO = 0


cdef int _remember(list kept, object entry) except -1:
    """Append ``entry`` to ``[misses, entries...]`` (at most ``KEPT_ACCESSES``; each eviction
    is a miss, a hit resets the count); after ``GIVE_UP`` misses in a row nothing is kept."""
    cdef Py_ssize_t misses = kept[0]
    if misses >= GIVE_UP:  # never repeated here
        return 0
    if len(kept) == 1 + KEPT_ACCESSES:
        kept[0] = misses + 1
        if misses + 1 >= GIVE_UP:
            del kept[1:]
            return 0
        del kept[1]
    kept.append(entry)
    return 0

cdef enum:
    KEPT_ACCESSES = 4  # access tuples kept per location
    GIVE_UP = 64  # evictions in a row (no hit between) after which a location is forgotten
    MEMO_LOCATIONS = 4096  # locations remembered at most (more: the memo starts over)
    WINDOW = 4096  # ops per window of the memo's hit count
    RARE_HITS = 16  # fewer hits than one op in this many: the memo rests
    REST = 65536  # ops the memo rests for before it looks again


cdef bint _same_operands(tuple a, tuple b, bint shapes) except -1:
    """Same memref operands (buffer, region and, with ``shapes``, shape; other operands do not
    matter)."""
    cdef Py_ssize_t k
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for k in range(len(a)):
        x, y = a[k], b[k]
        if x is y:
            continue
        if type(x) is Access:
            if type(y) is not Access:
                return False
            if (not _equal(_read(x, _BUFFER, "buffer"), _read(y, _BUFFER, "buffer"))
                    or not _same_region(_read(x, _REGION, "region"), _read(y, _REGION, "region"))
                    or (shapes and _read(x, _SHAPE, "shape") != _read(y, _SHAPE, "shape"))):
                return False
        elif type(y) is Access:
            return False
    return True


cdef inline bint _equal(object a, object b) except -1:
    """``a == b`` (identical objects, e.g. small ints, need no comparison)."""
    return a is b or a == b


cdef bint _same_region(object a, object b) except -1:
    """``a == b`` for regions: tuples of ``(lo, hi)`` tuples compared item by item."""
    cdef Py_ssize_t d
    if a is b:
        return True
    if type(a) is not tuple or type(b) is not tuple:
        return a == b
    if len(<tuple>a) != len(<tuple>b):
        return False
    for d in range(len(<tuple>a)):
        x, y = (<tuple>a)[d], (<tuple>b)[d]
        if x is y:
            continue
        if (type(x) is not tuple or type(y) is not tuple or len(<tuple>x) != 2
                or len(<tuple>y) != 2):
            if x != y:
                return False
        elif not _equal((<tuple>x)[0], (<tuple>y)[0]) or not _equal((<tuple>x)[1], (<tuple>y)[1]):
            return False
    return True


cdef tuple _known_sync(object syncs, dict by_loc, object op, object name, object loc,
                       object props):
    """``_SyncTranslator.translate``'s entry for a sync op (learned when new)."""
    kept = by_loc.get(loc)
    if kept is not None:
        for entry in <list>kept:
            if (<tuple>entry)[0] == name and (<tuple>entry)[1] == props:
                return <tuple>entry
    return <tuple>syncs._learn(op)


cdef tuple _instance(tuple template, Py_ssize_t ref):
    """The instruction of a ``sync_template`` with op reference ``ref``."""
    cdef tuple ins = <tuple>template[0]
    cdef Py_ssize_t at = template[1], k
    cdef tuple item
    if at < 0:
        item = <tuple>ins[2]
        return (ins[0], ins[1], (item[0], item[1], ref, item[3]))
    cdef tuple out = PyTuple_New(len(ins))
    cdef object value
    for k in range(len(ins)):
        value = ref if k == at else ins[k]
        Py_INCREF(value)
        PyTuple_SET_ITEM(out, k, value)
    return out


cdef class _Group:
    """``_TileTranslator._group_accesses`` (with ``_writes``) for one of several issuer groups,
    the translator's tables read once."""

    cdef object tiles, copy
    cdef set written
    cdef list ranks, private
    cdef dict shares

    def __init__(self, tiles):
        self.tiles = tiles
        self.ranks, self.private, self.shares = tiles.ranks, tiles.private, tiles.shares
        self.written, self.copy = tiles.written, tiles.copy_offset

    cdef tuple translate(self, object op, object name, bint accum, set used, object loc,
                         object operands, _Memo memo):
        cdef list mems = [a for a in operands if type(a) is Access]
        if not mems:
            return ()
        cdef list ranks = self.ranks
        cdef list private = self.private
        for a in mems:
            buf, region = _read(a, _BUFFER, "buffer"), _read(a, _REGION, "region")
            if not 0 <= buf < len(ranks) or ranks[buf] != len(region):
                self.tiles._checked(op, a)
        cdef Py_ssize_t n = len(mems), k
        cdef bint every = name == "tile.call"
        if not every and accum:
            mems.insert(n - 1, mems[n - 1])  # read, then written (``_writes``)
            n += 1
        dst = mems[n - 1]
        cdef bint narrow = n > 1 and not private[_read(dst, _BUFFER, "buffer")]
        cdef bint write
        cdef list out = []
        cdef dict shares = self.shares
        for k in range(n):
            access = mems[k]
            write = every or k == n - 1
            buf, region = _read(access, _BUFFER, "buffer"), _read(access, _REGION, "region")
            if private[buf]:
                buf = buf + self.copy  # virtual_buffer(buf, issuer, stride)
            elif write or (narrow and _read(access, _SHAPE, "shape") == _read(dst, _SHAPE,
                                                                              "shape")):
                region = shares[region] if region in shares else self.tiles._share(region)
                if region is None:
                    continue
            used.add(buf)
            if write:
                self.written.add(buf)
            out.append(memo.access(loc, k, buf, region, write))
        return tuple(out)
