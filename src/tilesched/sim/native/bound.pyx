# cython: language_level=3
# distutils: language = c++
"""The lower bound of ``critical_path.py`` in compiled form: the same answers, several times cheaper.

:class:`BoundTracker` here replaces the Python ``critical_path.BoundTracker`` where only
``feed``, ``bound``, ``busiest`` and the ``work`` totals are used (full-unroll simulation;
steady-state mode reads the Python tracker's internals and keeps it). It follows the Python
code step by step, so that every result is identical:

- a buffer's live writes are kept in insertion order (the Python dict's order, which its
  ``age`` stamps follow too), with their finish times and the ``disjoint`` flag;
- a read takes the newest-first overlapping writes up to the first that contains it, skipping
  one whose overlap is covered by a single newer overlapping write; a write removes the live
  writes it contains;
- past ``INDEX_AT`` live writes a buffer indexes them by the same grid of cells (sized by the
  write that crossed the threshold; a region spanning more than ``MAX_CELLS`` cells is kept
  apart), so that even regions empty in some dimension are found exactly when the Python index
  finds them. Cells and regions are hashed; a region met in a cell's bucket counts only if it
  really covers that cell, and an exact lookup compares coordinates, so hash collisions change
  nothing.

The instructions are read in place (borrowed references, no unpacking). Regions are converted
to 64-bit integers (``OverflowError`` beyond), and a buffer's regions must all have the same
number of dimensions (``ValueError`` otherwise; the instruction compiler guarantees it).
"""

from cpython.ref cimport PyObject
from cython.operator cimport dereference as deref
from libc.stdint cimport int64_t, uint64_t
from libcpp.algorithm cimport sort
from libcpp.pair cimport pair
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from tilesched.sim import isa as _isa
from tilesched.sim.isa cimport ENQ as _ENQ, INLINE as _INLINE, TILE as _TILE
from tilesched.sim.native.source_hash cimport TILESCHED_SOURCE_HASH

SOURCE_HASH = TILESCHED_SOURCE_HASH.decode()  # what it was built from (native/sources.py)

cdef extern from "Python.h":
    bint _is_tuple "PyTuple_CheckExact"(PyObject*)
    Py_ssize_t _tuple_size "PyTuple_GET_SIZE"(PyObject*)
    PyObject* _tuple_item "PyTuple_GET_ITEM"(PyObject*, Py_ssize_t)
    bint _is_list "PyList_CheckExact"(PyObject*)
    Py_ssize_t _list_size "PyList_GET_SIZE"(PyObject*)
    PyObject* _list_item "PyList_GET_ITEM"(PyObject*, Py_ssize_t)
    int _truth "PyObject_IsTrue"(PyObject*) except -1
    PyObject* _TRUE "Py_True"
    PyObject* _FALSE "Py_False"

cdef extern from *:
    """
    /* PyLong_AsLongLong with the common case (a small exact int) inlined. */
    static inline long long tilesched_as_int(PyObject* o) {
        if (PyLong_CheckExact(o)) {
    #if PY_VERSION_HEX >= 0x030C0000
            if (PyUnstable_Long_IsCompact((PyLongObject*)o))
                return (long long)PyUnstable_Long_CompactValue((PyLongObject*)o);
    #else
            Py_ssize_t size = Py_SIZE(o);
            if (size == 0) return 0;
            if (size == 1) return (long long)((PyLongObject*)o)->ob_digit[0];
            if (size == -1) return -(long long)((PyLongObject*)o)->ob_digit[0];
    #endif
        }
        return PyLong_AsLongLong(o);
    }
    """
    long long _as_int "tilesched_as_int"(PyObject*) except? -1

cdef long long ENQ = _ENQ
cdef long long INLINE = _INLINE
cdef long long TILE = _TILE
cdef int64_t NEAR_BUFFERS = 1 << 16  # buffer ids below this are looked up in a flat array


# ------------------------------------------------------------------ reading instructions

cdef int _malformed(PyObject* what, str expected) except -1:
    raise TypeError(f"{expected} expected in a bound tracker's input, got {<object>what!r}")


cdef inline PyObject* _field(PyObject* record, Py_ssize_t i) except NULL:
    """``record[i]`` of a tuple (a borrowed reference)."""
    if not _is_tuple(record) or _tuple_size(record) <= i:
        _malformed(record, f"a tuple with a field {i}")
    return _tuple_item(record, i)


cdef inline Py_ssize_t _length(PyObject* seq) except -1:
    if _is_tuple(seq):
        return _tuple_size(seq)
    if _is_list(seq):
        return _list_size(seq)
    _malformed(seq, "a tuple or list")


cdef inline PyObject* _item(PyObject* seq, Py_ssize_t i) noexcept:
    """``seq[i]`` of a tuple or list already measured by :func:`_length`."""
    return _tuple_item(seq, i) if _is_tuple(seq) else _list_item(seq, i)


cdef inline int _is_true(PyObject* flag) except -1:
    if flag == _TRUE:
        return 1
    if flag == _FALSE:
        return 0
    return _truth(flag)


cdef int _parse(PyObject* region, vector[int64_t]& box) except -1:
    """A region ``((lo, hi), ...)`` as ``lo0, hi0, lo1, hi1, ...`` in ``box``."""
    if not _is_tuple(region):
        _malformed(region, "a region (a tuple of (lo, hi) pairs)")
    cdef Py_ssize_t ndim = _tuple_size(region), d
    cdef PyObject* dim
    box.resize(2 * ndim)
    for d in range(ndim):
        dim = _tuple_item(region, d)
        if not _is_tuple(dim) or _tuple_size(dim) != 2:
            _malformed(region, "a region (a tuple of (lo, hi) pairs)")
        box[2 * d] = _as_int(_tuple_item(dim, 0))
        box[2 * d + 1] = _as_int(_tuple_item(dim, 1))
    return 0


# ------------------------------------------------------------------ regions

cdef inline uint64_t _mix(uint64_t h, int64_t value) noexcept nogil:
    """Fold one integer into a hash (splitmix64's finalizer on the value)."""
    cdef uint64_t z = <uint64_t>value + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    z = z ^ (z >> 31)
    return (h ^ z) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL


cdef inline int64_t _floordiv(int64_t a, int64_t b) noexcept nogil:
    """Python's ``a // b`` for ``b >= 1``."""
    cdef int64_t q = a // b
    if a % b != 0 and a < 0:
        q -= 1
    return q


cdef inline bint _overlap(const int64_t* a, const int64_t* b, int ndim) noexcept nogil:
    """``critical_path._overlap``: no dimension separates the two regions."""
    cdef int d
    for d in range(ndim):
        if a[2 * d] >= b[2 * d + 1] or b[2 * d] >= a[2 * d + 1]:
            return False
    return True


cdef inline bint _contains(const int64_t* outer, const int64_t* inner, int ndim) noexcept nogil:
    """``critical_path._contains``: ``inner`` lies inside ``outer``."""
    cdef int d
    for d in range(ndim):
        if inner[2 * d] < outer[2 * d] or inner[2 * d + 1] > outer[2 * d + 1]:
            return False
    return True


cdef inline bint _same(const int64_t* a, const int64_t* b, int width) noexcept nogil:
    cdef int k
    for k in range(width):
        if a[k] != b[k]:
            return False
    return True


cdef inline void _drop(vector[int]& slots, int slot) noexcept:
    """Remove one occurrence of ``slot`` (order does not matter: lists are sorted on use)."""
    cdef size_t k
    for k in range(slots.size()):
        if slots[k] == slot:
            slots[k] = slots.back()
            slots.pop_back()
            return


cdef class _Written:
    """The live writes of one buffer (``critical_path.WrittenRegions``) in flat arrays.

    Slots hold a region (``width`` integers in ``boxes``), its finish time and insertion stamp;
    live slots form a doubly linked list in insertion order (``head`` oldest). Once indexed,
    ``cells`` maps a hashed grid cell to the slots covering it and ``by_hash`` chains the slots
    by a hash of their region for exact lookup (before, a scan of at most ``index_at`` slots).
    """

    cdef int ndim, width
    cdef bint disjoint, indexed
    cdef int head, tail, live
    cdef int64_t clock, stamp
    cdef vector[int64_t] boxes, finish, age, size, cell, common
    cdef vector[int] older, newer, chain, free, big, mark, found
    cdef vector[uint64_t] hashes
    cdef unordered_map[uint64_t, int] by_hash
    cdef unordered_map[uint64_t, vector[int]] cells
    cdef vector[pair[int64_t, int]] by_age
    cdef Py_ssize_t index_at, max_cells

    def __cinit__(self, int ndim, Py_ssize_t index_at, Py_ssize_t max_cells):
        self.ndim, self.width = ndim, 2 * ndim
        self.common.resize(2 * ndim)
        self.cell.resize(ndim)
        self.disjoint = True
        self.head = self.tail = -1
        self.index_at, self.max_cells = index_at, max_cells

    cdef inline int check(self, const vector[int64_t]& box) except -1:
        if <int>box.size() != self.width:
            raise ValueError(f"a {box.size() // 2}-dimensional region of a buffer first "
                             f"written with {self.ndim} dimensions")
        return 0

    cdef inline const int64_t* region(self, int slot) noexcept:
        return self.boxes.data() + slot * self.width

    cdef uint64_t hash_box(self, const int64_t* box) noexcept:
        cdef uint64_t h = 0
        cdef int k
        for k in range(self.width):
            h = _mix(h, box[k])
        return h

    cdef int find(self, const int64_t* box) noexcept:
        """The live slot holding exactly ``box``, or -1."""
        cdef int slot
        if not self.indexed:
            slot = self.tail
            while slot >= 0 and not _same(self.region(slot), box, self.width):
                slot = self.older[slot]
            return slot
        cdef unordered_map[uint64_t, int].iterator it = self.by_hash.find(self.hash_box(box))
        if it == self.by_hash.end():
            return -1
        slot = deref(it).second
        while slot >= 0 and not _same(self.region(slot), box, self.width):
            slot = self.chain[slot]
        return slot

    # -------------------------------------------------------------- reads and writes

    cdef int64_t ready(self, const int64_t* box) noexcept:
        """Latest finish among the writes a read of ``box`` depends on (``ready``/``depends``)."""
        cdef int slot, k, n, d
        cdef const int64_t* written
        if self.disjoint:
            slot = self.find(box)
            if slot >= 0:
                return self.finish[slot]
        self.overlapping(box, True)
        cdef bint any_found = False, covered
        cdef int64_t best = 0
        cdef int count = <int>self.found.size()
        cdef int64_t* common = self.common.data()
        for k in range(count):
            slot = self.found[k]
            written = self.region(slot)
            if _contains(written, box, self.ndim):
                if not any_found or self.finish[slot] > best:
                    best = self.finish[slot]
                return best
            for d in range(self.ndim):
                common[2 * d] = written[2 * d] if written[2 * d] > box[2 * d] else box[2 * d]
                common[2 * d + 1] = (written[2 * d + 1] if written[2 * d + 1] < box[2 * d + 1]
                                     else box[2 * d + 1])
            covered = False
            for n in range(k):  # the newer overlapping writes
                if _contains(self.region(self.found[n]), common, self.ndim):
                    covered = True
                    break
            if not covered and (not any_found or self.finish[slot] > best):
                best = self.finish[slot]
                any_found = True
        return best

    cdef void write(self, const int64_t* box, int64_t finish) noexcept:
        """Make ``box`` the newest write, dropping older writes it covers (``write``)."""
        cdef int slot = self.find(box)
        if slot >= 0 and self.disjoint:
            self.renew(slot, finish)  # disjoint from every other entry: nothing else is covered
            return
        if slot >= 0:
            self.remove(slot)
        self.overlapping(box, False)
        cdef bint kept = False
        cdef int k
        for k in range(<int>self.found.size()):
            slot = self.found[k]
            if _contains(box, self.region(slot), self.ndim):
                self.remove(slot)
            else:
                kept = True
        if kept:
            self.disjoint = False
        self.add(box, finish)

    # -------------------------------------------------------------- slots

    cdef void link(self, int slot) noexcept:
        """Make ``slot`` the newest live slot."""
        self.clock += 1
        self.age[slot] = self.clock
        self.older[slot], self.newer[slot] = self.tail, -1
        if self.tail >= 0:
            self.newer[self.tail] = slot
        else:
            self.head = slot
        self.tail = slot

    cdef void unlink(self, int slot) noexcept:
        if self.older[slot] >= 0:
            self.newer[self.older[slot]] = self.newer[slot]
        else:
            self.head = self.newer[slot]
        if self.newer[slot] >= 0:
            self.older[self.newer[slot]] = self.older[slot]
        else:
            self.tail = self.older[slot]

    cdef void renew(self, int slot, int64_t finish) noexcept:
        """Remove and add the same region again: its cells and hash stay, it becomes newest."""
        self.finish[slot] = finish
        if slot != self.tail:
            self.unlink(slot)
            self.link(slot)
        else:
            self.clock += 1
            self.age[slot] = self.clock

    cdef void add(self, const int64_t* box, int64_t finish) noexcept:
        cdef int slot, k
        if self.free.size():
            slot = self.free.back()
            self.free.pop_back()
        else:
            slot = <int>self.finish.size()
            self.boxes.resize(self.boxes.size() + self.width)
            self.finish.push_back(0)
            self.age.push_back(0)
            self.older.push_back(-1)
            self.newer.push_back(-1)
            self.chain.push_back(-1)
            self.hashes.push_back(0)
            self.mark.push_back(0)
        cdef int64_t* held = self.boxes.data() + slot * self.width
        for k in range(self.width):
            held[k] = box[k]
        self.finish[slot] = finish
        self.link(slot)
        self.live += 1
        if self.indexed:
            self.enter(slot)
        elif self.live > self.index_at:
            self.indexed = True
            self.size.resize(self.ndim)
            for k in range(self.ndim):
                self.size[k] = box[2 * k + 1] - box[2 * k]
                if self.size[k] < 1:
                    self.size[k] = 1
            slot = self.head
            while slot >= 0:
                self.enter(slot)
                slot = self.newer[slot]

    cdef void remove(self, int slot) noexcept:
        if self.indexed:
            self.leave(slot)
        self.unlink(slot)
        self.live -= 1
        self.free.push_back(slot)

    cdef void enter(self, int slot) noexcept:
        """Put an indexed slot in ``by_hash`` and its cells."""
        cdef uint64_t h = self.hash_box(self.region(slot))
        self.hashes[slot] = h
        cdef unordered_map[uint64_t, int].iterator it = self.by_hash.find(h)
        self.chain[slot] = deref(it).second if it != self.by_hash.end() else -1
        self.by_hash[h] = slot
        self.index(slot, True)

    cdef void leave(self, int slot) noexcept:
        """Take an indexed slot out of ``by_hash`` and its cells."""
        self.index(slot, False)
        cdef uint64_t h = self.hashes[slot]
        cdef int first = self.by_hash[h]
        cdef int other
        if first == slot:
            if self.chain[slot] >= 0:
                self.by_hash[h] = self.chain[slot]
            else:
                self.by_hash.erase(h)
        else:
            other = first
            while self.chain[other] != slot:
                other = self.chain[other]
            self.chain[other] = self.chain[slot]

    # -------------------------------------------------------------- the grid index

    cdef int64_t cell_count(self, const int64_t* box) noexcept:
        """How many grid cells ``box`` covers (``_cell_keys``), capped past ``max_cells``."""
        cdef int64_t count = 1, span
        cdef bint many = False
        cdef int d
        for d in range(self.ndim):
            span = _floordiv(box[2 * d + 1] - 1, self.size[d]) + 1 - _floordiv(box[2 * d], self.size[d])
            if span <= 0:
                return 0
            if not many:
                if span > self.max_cells:
                    many = True
                else:
                    count *= span
                    many = count > self.max_cells
        return self.max_cells + 1 if many else count

    cdef bint first_cell(self, const int64_t* box) noexcept:
        cdef int d
        for d in range(self.ndim):
            self.cell[d] = _floordiv(box[2 * d], self.size[d])
        return True

    cdef bint next_cell(self, const int64_t* box) noexcept:
        """Advance ``cell`` to the next cell of ``box`` (odometer order); False when done."""
        cdef int d = self.ndim - 1
        while d >= 0:
            if self.cell[d] < _floordiv(box[2 * d + 1] - 1, self.size[d]):
                self.cell[d] += 1
                return True
            self.cell[d] = _floordiv(box[2 * d], self.size[d])
            d -= 1
        return False

    cdef uint64_t hash_cell(self) noexcept:
        cdef uint64_t h = 0x51ED27ULL
        cdef int d
        for d in range(self.ndim):
            h = _mix(h, self.cell[d])
        return h

    cdef bint covers_cell(self, int slot) noexcept:
        """Does the slot's region cover the grid cell ``cell``?"""
        cdef const int64_t* box = self.region(slot)
        cdef int d
        for d in range(self.ndim):
            if (self.cell[d] < _floordiv(box[2 * d], self.size[d])
                    or self.cell[d] > _floordiv(box[2 * d + 1] - 1, self.size[d])):
                return False
        return True

    cdef void index(self, int slot, bint adding) noexcept:
        """Enter the slot in (or take it out of) its cells, or the ``big`` list."""
        cdef const int64_t* box = self.region(slot)
        cdef int64_t count = self.cell_count(box)
        cdef int k
        if count > self.max_cells:
            if adding:
                self.big.push_back(slot)
            else:
                _drop(self.big, slot)
            return
        if count == 0:
            return
        self.first_cell(box)
        cdef uint64_t h
        while True:
            h = self.hash_cell()
            if adding:
                self.cells[h].push_back(slot)
            else:
                _drop(self.cells[h], slot)
                if self.cells[h].empty():
                    self.cells.erase(h)
            if not self.next_cell(box):
                break

    cdef void overlapping(self, const int64_t* box, bint newest_first) noexcept:
        """The live regions overlapping ``box`` into ``found`` (newest first when asked)."""
        self.found.clear()
        cdef int slot, k
        cdef int64_t count = 0
        if self.indexed:
            count = self.cell_count(box)
        if not self.indexed or count > self.max_cells:
            slot = self.tail if newest_first else self.head
            while slot >= 0:
                if _overlap(self.region(slot), box, self.ndim):
                    self.found.push_back(slot)
                slot = self.older[slot] if newest_first else self.newer[slot]
            return
        self.stamp += 1
        for k in range(<int>self.big.size()):
            self.take(self.big[k], box)
        cdef unordered_map[uint64_t, vector[int]].iterator it
        if count > 0:
            self.first_cell(box)
            while True:
                it = self.cells.find(self.hash_cell())
                if it != self.cells.end():
                    for k in range(<int>deref(it).second.size()):
                        slot = deref(it).second[k]
                        if self.mark[slot] != self.stamp and self.covers_cell(slot):
                            self.take(slot, box)
                if not self.next_cell(box):
                    break
        if newest_first and self.found.size() > 1:
            self.by_age.clear()
            for k in range(<int>self.found.size()):
                self.by_age.push_back(pair[int64_t, int](-self.age[self.found[k]], self.found[k]))
            sort(self.by_age.begin(), self.by_age.end())
            for k in range(<int>self.by_age.size()):
                self.found[k] = self.by_age[k].second

    cdef inline void take(self, int slot, const int64_t* box) noexcept:
        self.mark[slot] = self.stamp
        if _overlap(self.region(slot), box, self.ndim):
            self.found.push_back(slot)


cdef class _Path:
    """One issuer's critical path (``critical_path.CriticalPath``)."""

    cdef list written  # of _Written
    cdef vector[int] near  # buffer id -> 1 + position in ``written`` (0: none), small ids
    cdef unordered_map[int64_t, int] far  # the same for large ids (per-group virtual buffers)
    cdef public int64_t longest
    cdef vector[int64_t] box
    cdef Py_ssize_t index_at, max_cells

    def __cinit__(self, Py_ssize_t index_at, Py_ssize_t max_cells):
        self.written = []
        self.index_at, self.max_cells = index_at, max_cells

    cdef int find(self, int64_t buf) noexcept:
        """Position of the buffer's live writes in ``written``, or -1."""
        if 0 <= buf < <int64_t>self.near.size():
            return self.near[buf] - 1
        if 0 <= buf < NEAR_BUFFERS:
            return -1
        cdef unordered_map[int64_t, int].iterator it = self.far.find(buf)
        return deref(it).second if it != self.far.end() else -1

    cdef _Written create(self, int64_t buf, int ndim):
        cdef int position = len(self.written)
        written = _Written(ndim, self.index_at, self.max_cells)
        self.written.append(written)
        if 0 <= buf < NEAR_BUFFERS:
            if buf >= <int64_t>self.near.size():
                self.near.resize(buf + 1, 0)
            self.near[buf] = position + 1
        else:
            self.far[buf] = position
        return written

    cdef int tile_op(self, PyObject* item) except -1:
        """Extend the chains by one tile op ``(TILE, duration, op, accesses)``."""
        cdef PyObject* accesses = _field(item, 3)
        cdef int64_t duration = _as_int(_field(item, 1))
        cdef Py_ssize_t count = _length(accesses), k
        cdef PyObject* access
        cdef int64_t start = 0, ready, finish, buf
        cdef int position
        cdef _Written written
        for k in range(count):
            access = _item(accesses, k)
            if not _is_tuple(access) or _tuple_size(access) != 4:
                _malformed(access, "an access (buffer, region, is_write, key)")
            if not _is_true(_tuple_item(access, 2)):
                position = self.find(_as_int(_tuple_item(access, 0)))
                if position >= 0:
                    written = <_Written>self.written[position]
                    _parse(_tuple_item(access, 1), self.box)
                    written.check(self.box)
                    ready = written.ready(self.box.data())
                    if ready > start:
                        start = ready
        finish = start + duration
        for k in range(count):
            access = _item(accesses, k)
            if _is_true(_tuple_item(access, 2)):
                buf = _as_int(_tuple_item(access, 0))
                _parse(_tuple_item(access, 1), self.box)
                position = self.find(buf)
                if position >= 0:
                    written = <_Written>self.written[position]
                    written.check(self.box)
                else:
                    written = self.create(buf, <int>(self.box.size() // 2))
                written.write(self.box.data(), finish)
        if finish > self.longest:
            self.longest = finish
        return 0


cdef class BoundTracker:
    """Unit work and per-issuer critical paths, fed chunk by chunk in program order.

    Python twin: ``tilesched.sim.engine.critical_path.BoundTracker``."""

    cdef list paths  # of _Path, or None
    cdef list unit_names  # unit slot -> name
    cdef vector[int] agent_unit  # agent -> unit slot (-1: pipelined)
    cdef vector[int] inline_unit  # inline unit index -> unit slot
    cdef vector[int64_t] unit_work
    cdef vector[int] touched  # unit slots in the order they first worked
    cdef vector[bint] worked

    def __init__(self, p, paths: bool = True):
        slots: dict = {}
        self.unit_names = []
        for agent in p.agents:
            self.agent_unit.push_back(-1 if agent.pipelined else self._unit(slots, agent.name))
        for name in p.inline_units:
            self.inline_unit.push_back(self._unit(slots, name))
        self.unit_work.assign(len(self.unit_names), 0)
        self.worked.assign(len(self.unit_names), False)
        index_at, max_cells = _isa.INDEX_AT, _isa.MAX_CELLS  # (read late: tests lower them)
        self.paths = [_Path(index_at, max_cells) for _ in range(p.issuer_count)] if paths else None

    def _unit(self, slots: dict, name) -> int:
        if name not in slots:
            slots[name] = len(self.unit_names)
            self.unit_names.append(name)
        return slots[name]

    def feed(self, Py_ssize_t issuer, code) -> None:
        """Account for one chunk of an issuer's instructions.

        Python twin: ``tilesched.sim.engine.critical_path.BoundTracker.feed``."""
        cdef _Path path = None
        if self.paths is not None:
            if not 0 <= issuer < len(self.paths):
                raise IndexError(f"issuer {issuer} out of range")
            path = <_Path>self.paths[issuer]
        if type(code) is not list:
            code = list(code)
        cdef PyObject* chunk = <PyObject*>code
        cdef PyObject* ins
        cdef PyObject* item
        cdef long long op, index
        cdef bint tile
        cdef Py_ssize_t k
        for k in range(_list_size(chunk)):
            ins = _list_item(chunk, k)
            op = _as_int(_field(ins, 0))
            if op != ENQ and op != INLINE:
                continue
            item = _field(ins, 2)
            index = _as_int(_field(ins, 1))
            tile = _as_int(_field(item, 0)) == TILE
            if op == ENQ:
                if not tile:
                    continue
                if not 0 <= index < <long long>self.agent_unit.size():
                    raise IndexError(f"agent {index} out of range")
                if self.agent_unit[index] >= 0:
                    self.work(self.agent_unit[index], _as_int(_field(item, 1)))
            else:
                if not 0 <= index < <long long>self.inline_unit.size():
                    raise IndexError(f"inline unit {index} out of range")
                self.work(self.inline_unit[index], _as_int(_field(item, 1)))
            if tile and path is not None:
                path.tile_op(item)

    cdef inline void work(self, int unit, int64_t duration) noexcept:
        if not self.worked[unit]:
            self.worked[unit] = True
            self.touched.push_back(unit)
        self.unit_work[unit] += duration

    @property
    def work(self) -> dict:
        """Total op time per unit (non-pipelined units and inline units), in first-work order.

        Python twin: ``tilesched.sim.engine.critical_path.BoundTracker.work``."""
        return {self.unit_names[u]: self.unit_work[u] for u in self.touched}

    def busiest(self) -> tuple:
        """``(unit, total op time)`` of the busiest unit (``("-", 0)`` when none worked).

        Python twin: ``tilesched.sim.engine.critical_path.BoundTracker.busiest``."""
        if not self.touched.size():
            return "-", 0
        cdef int best = self.touched[0], u
        for u in self.touched:
            if self.unit_work[u] > self.unit_work[best]:
                best = u
        return self.unit_names[best], self.unit_work[best]

    def longest_paths(self) -> list:
        """Each issuer's longest read-after-write chain so far.

        Python twin: ``tilesched.sim.engine.critical_path.CriticalPath.longest`` (per issuer)."""
        return [(<_Path>path).longest for path in self.paths or ()]

    def bound(self) -> tuple:
        """``(bound, reason)``: the larger of the busiest unit's work and the critical path.

        Python twin: ``tilesched.sim.engine.critical_path.BoundTracker.bound``."""
        unit_name, unit_work = self.busiest()
        path = max(self.longest_paths(), default=0)
        if unit_work >= path:
            return unit_work, f"unit {unit_name} busy {unit_work} cycles"
        return path, f"read-after-write chain of {path} cycles"
