# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Instructions of replayed loop iterations, made from those of the period before (``sim --full``).

Within a replayed segment (``replay.py``) iteration ``m`` lowers to the ops of iteration
``m - period`` with every region of buffer ``b`` moved by ``steps[b]``; the ops sit ``ops``
program positions later. Compiling those ops for an issuer group gives the group's instructions of
iteration ``m - period`` with each op reference moved by ``ops * stride`` and each access to ``b``
(its region, and the region in its history key) moved by ``steps[b]``: an access's region is the
operand's region or the group's share of it (``trace.group_share``), which moves with it, and a
private buffer's copy (``virtual_buffer``) moves with the buffer. :func:`repeated_code` makes the
instructions that way, period after period, instead of lowering and compiling every iteration.
``tests/sim/code/test_sim_producers.py`` checks that they equal the compiled instructions of every
iteration lowered one by one.
"""

from tilesched.sim.isa cimport ENQ, INLINE, MARK
from tilesched.sim.isa import reference_at
from tilesched.sim.native.source_hash cimport TILESCHED_SOURCE_HASH

SOURCE_HASH = TILESCHED_SOURCE_HASH.decode()  # what it was built from (native/sources.py)

cdef int _ENQ = ENQ, _INLINE = INLINE
cdef Py_ssize_t _AT[32]  # per opcode: where its op reference sits (isa.reference_at)
assert MARK < 32
for _code in range(MARK + 1):
    _AT[_code] = reference_at(_code)


def repeated_code(list templates, Py_ssize_t count, object delta, dict steps,
                  long long vstride, tuple mark_head, object frame, object first):
    """``(instructions, last)``: the instructions of ``count`` iterations from ``first`` on,
    each made from the iteration ``len(templates)`` earlier (``templates``: the group's
    instructions of the period before ``first``, each ending with a ``MARK``), each followed by
    ``mark_head + (next iteration, frame)``; ``last``: those of the last period, one list per
    iteration.

    Python twin: ``tilesched.sim.code.chunk_compiler.GroupCompiler._code`` on each iteration
    lowered again (there is no batched Python loop: the Python engine needs a chunk per
    iteration; ``tests/sim/code/test_sim_producers.py`` checks that both give the same
    instructions)."""
    cdef Py_ssize_t period = len(templates), j, k, size
    cdef list window = list(templates), out = [], prev, new
    cdef object n = first
    for j in range(count):
        prev = <list>window[j % period]
        size = len(prev) - 1  # without its MARK
        new = [None] * (size + 1)
        for k in range(size):
            new[k] = _moved(<tuple>prev[k], delta, steps, vstride)
        n = n + 1
        new[size] = mark_head + (n, frame)
        window[j % period] = new
        out.extend(new)
    return out, window


cdef tuple _moved(tuple ins, object delta, dict steps, long long vstride):
    """One instruction a period later (where each layout keeps its op reference:
    ``program.reference_at``)."""
    cdef int op = ins[0]
    cdef tuple item
    if op == _ENQ or op == _INLINE:
        item = <tuple>ins[2]
        accesses = item[3]
        if accesses and steps:
            accesses = _moved_accesses(<tuple>accesses, steps, vstride)
        return (ins[0], ins[1], (item[0], item[1], item[2] + delta, accesses))
    cdef Py_ssize_t at = _AT[op]
    if at == 1 and len(ins) == 2:
        return (ins[0], ins[1] + delta)
    if at == 2 and len(ins) == 3:
        return (ins[0], ins[1], ins[2] + delta)
    return ins[:at] + (ins[at] + delta,) + ins[at + 1:]


cdef tuple _moved_accesses(tuple accesses, dict steps, long long vstride):
    """Access tuples ``(buffer, region, is_write, (region, loc))`` with the regions of moving
    buffers moved (the same tuple when none moves)."""
    cdef list out = None
    cdef Py_ssize_t k, d, n = len(accesses)
    cdef tuple access, region, step, bounds
    cdef list moved
    for k in range(n):
        access = <tuple>accesses[k]
        step_ = steps.get(<long long>access[0] % vstride)  # a private copy moves with its buffer
        if step_ is None:
            continue
        step = <tuple>step_
        region = <tuple>access[1]
        moved = [None] * len(region)
        for d in range(len(region)):
            bounds = <tuple>region[d]
            moved[d] = (bounds[0] + step[d], bounds[1] + step[d])
        region = tuple(moved)
        if out is None:
            out = list(accesses)
        out[k] = (access[0], region, access[2], (region, (<tuple>access[3])[1]))
    return accesses if out is None else tuple(out)
