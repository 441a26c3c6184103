# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Native versions of the instruction producers' per-op loops (optional, see ``setup.py``).

Each function here is line for line the pure-Python loop it replaces, compiled (typed locals, no
interpreter dispatch); what happens once per static op or per new pair stays in Python and is
called back. The pure-Python loops are the reference: ``TILESCHED_PURE_PYTHON=1`` uses them, and
``tests/sim/test_sim_producers.py`` compares both with the original producers.

- :func:`chunk_code` is :meth:`chunk_compiler.GroupCompiler.code`;
- :func:`moved_ops` is :meth:`replay.LoopReplay._moved` with a known plan;
- :func:`issuer_code` is ``InstructionCompiler.issuer_code`` with memory operands
  (``compile_trace``), tile ops translated inline.
"""

from cpython.ref cimport PyObject

import tilesched.sim.program as program  # (program.py imports this module: opcodes read late)
from tilesched.sim.trace import SYNC_OPS, Access


def chunk_code(object group, object chunk, object ref, object stride):
    """The instructions of one chunk for one issuer group, op references from ``ref`` (see
    ``GroupCompiler.code``)."""
    cdef list code = []
    cdef object item = program.TILE
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
        code.append((program.MARK, kind, frame.loop, n, frame))
    return code


def moved_ops(list ops, tuple plan):
    """``ops`` one period later, moved as ``plan`` says (see ``LoopReplay._moved``)."""
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


def issuer_code(object tiles, object sync, list ops, Py_ssize_t base):
    """The instructions of one issuer group's ops, with memory operands (see
    ``InstructionCompiler.issuer_code``, ``_TileTranslator.translate``, ``_accesses`` and
    ``_group_accesses``); ``tiles`` is the group's ``_TileTranslator``, ``sync`` its sync
    translation."""
    cdef list body = []
    cdef object tile = program.TILE
    cdef dict routes = tiles.routes
    cdef list ranks = tiles.ranks
    cdef object written = tiles.written
    cdef object sync_ops = SYNC_OPS
    cdef Py_ssize_t index = base - 1
    cdef list out
    cdef tuple route, last
    cdef bint single = tiles.compiler.groups == 1
    for op in ops:
        index += 1
        name = op.name
        if name in sync_ops:
            ins = sync(op, index)
            if ins is not None:
                body.append(ins)
            continue
        duration = op.duration
        route = routes.get((op.unit, op.async_queue, op.lds))
        if route is None or not isinstance(duration, int) or duration < 0:
            route = tiles._route(op)
        used = route[2]
        if not single:
            body.append((route[0], route[1], (tile, duration, index,
                                              _group_accesses(tiles, op, used, written))))
            continue
        loc = op.loc
        out = []
        for a in op.operands:
            if type(a) is Access:
                buf, region = a.buffer, a.region
                if not 0 <= buf < len(ranks) or ranks[buf] != len(region):
                    tiles._checked(op, a)
                used.add(buf)
                out.append((buf, region, False, (region, loc)))
        if not out:
            accesses = ()
        elif name == "tile.call":
            written.update([access[0] for access in out])
            accesses = tuple([(access[0], access[1], True, access[3]) for access in out])
        else:
            last = out[len(out) - 1]  # (no negative indices: wraparound=False)
            written.add(last[0])
            if name == "tile.matmul" and op.props.get("accumulate"):
                out.append((last[0], last[1], True, last[3]))
            else:
                out[len(out) - 1] = (last[0], last[1], True, last[3])
            accesses = tuple(out)
        body.append((route[0], route[1], (tile, duration, index, accesses)))
    return body


cdef tuple _group_accesses(object tiles, object op, object used, object written):
    """``_TileTranslator._group_accesses``: the access tuples of one of several issuer groups."""
    cdef list mems = [a for a in op.operands if type(a) is Access]
    if not mems:
        return ()
    cdef list ranks = tiles.ranks
    cdef list private = tiles.private
    for a in mems:
        if not 0 <= a.buffer < len(ranks) or ranks[a.buffer] != len(a.region):
            tiles._checked(op, a)
    cdef list writes = tiles._writes(op, mems)
    dst = mems[len(mems) - 1]
    cdef bint narrow = len(mems) > 1 and not private[dst.buffer]
    cdef list out = []
    cdef dict shares = tiles.shares
    loc, copy = op.loc, tiles.copy_offset
    cdef Py_ssize_t k
    for k in range(len(mems)):
        access, write = mems[k], writes[k]
        buf, region = access.buffer, access.region
        if private[buf]:
            buf = buf + copy  # virtual_buffer(buf, issuer, stride)
        elif write or (narrow and access.shape == dst.shape):
            region = shares[region] if region in shares else tiles._share(region)
            if region is None:
                continue
        used.add(buf)
        if write:
            written.add(buf)
        out.append((buf, region, write, (region, loc)))
    return tuple(out)
