"""emit-cpp for split-core targets (``ascend-a2-mix``): one kernel source for every core.

The device compiles a mixed kernel once per core kind: the cube part with ``__DAV_CUBE__``, the
vector part with ``__DAV_VEC__`` (PTO-ISA ``include/pto/common/arch_macro.hpp:14-16``; its mixed
kernels guard each side so, e.g. ``npu/a2a3/TPush.hpp:120-162`` and
``kernels/manual/common/flash_atten/fa_performance_kernel.cpp:73-82``), and both vector cores of
a group run the vector binary, telling themselves apart by ``get_subblockid()``. So the program
keeps its structure (loops, ifs and index math are replicated on every core) and each op's
statement is guarded by the core that runs it:

- cube core AIC: ``#if defined(__DAV_CUBE__)``;
- vector core AIVk: ``#if defined(__DAV_VEC__)`` and ``if (TILESCHED_ON_SUBBLOCK(k)) { ... }``
  (tile declarations of UB buffers only under the ``#if``, so later statements see them).

Cross-core flags are the FFTS calls the library makes (``npu/a2a3/TSync.hpp:44-49,80-108``):
``ffts_cross_core_sync(PIPE_X, pto::getFFTSMsg(FFTS_MODE_VAL, id))`` (mode 2: between the cube
core and the vector cores of one group, after the src core's pipe X is done) and
``wait_flag_dev(id)``.

The CPU simulator (``-D__CPU_SIM``) defines both macros and runs every core's statements in
program order on one thread; it has no FFTS, so :data:`CORES_PRELUDE` makes the two calls no-ops
there (as it makes set_flag / wait_flag) and every vector core's section run.
"""

from __future__ import annotations

from tilesched.ir import sync as S
from tilesched.target.cores import split_unit
from tilesched.target.model import Target

CORES_PRELUDE = """
// Split-core kernel (cube core: __DAV_CUBE__; vector cores: __DAV_VEC__ and get_subblockid()).
// The CPU simulator defines both macros and runs every core's code in program order on one
// thread, without FFTS: there the cross-core flags are no-ops and every vector core's code runs.
#if defined(__CPU_SIM)
#define TILESCHED_ON_SUBBLOCK(k) true
#ifndef FFTS_MODE_VAL
#define FFTS_MODE_VAL 0x2
#endif
inline void ffts_cross_core_sync(pipe_t, uint64_t) {}
inline void wait_flag_dev(uint64_t) {}
namespace pto {
inline uint16_t getFFTSMsg(uint16_t, uint16_t, uint16_t = 0x1) { return 0; }
}  // namespace pto
#else
#define TILESCHED_ON_SUBBLOCK(k) (get_subblockid() == (k))
#endif
"""

CUBE_MACRO, VECTOR_MACRO = "__DAV_CUBE__", "__DAV_VEC__"


def core_macro(core: str, target: Target) -> str:
    """The compiler macro of the binary ``core``'s code goes into: the cube core's (the core
    that owns L0C) or the vector cores'."""
    spaces = target.cores[core].spaces
    return CUBE_MACRO if "L0C" in spaces or "L1" in spaces else VECTOR_MACRO


def subblock(core: str, target: Target) -> int | None:
    """The ``get_subblockid()`` of a vector core (its rank among the vector cores), else None."""
    vectors = [c for c in target.cores if core_macro(c, target) == VECTOR_MACRO]
    return vectors.index(core) if core in vectors else None


def sync_core(op: S.SyncOp, target: Target) -> str | None:
    """The core that executes a sync op: a cross-core set its src core, a wait its dst core, a
    flag or pipe barrier the core of its unit(s)."""
    if isinstance(op, S.CrossSetOp):
        return op.src.data
    if isinstance(op, S.CrossWaitOp):
        return op.dst.data
    if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
        return target.core_of(op.src.data)
    if isinstance(op, S.PipeBarrierOp):
        return target.core_of(op.pipe.data)
    return None


def cross_core_call(op: S.CrossSetOp | S.CrossWaitOp, ident: str) -> str:
    """The FFTS call of a cross-core flag op, ``ident`` its id as C++."""
    if isinstance(op, S.CrossSetOp):
        return (f"ffts_cross_core_sync(PIPE_{split_unit(op.unit.data)[1]}, "
                f"pto::getFFTSMsg(FFTS_MODE_VAL, {ident}));")
    return f"wait_flag_dev({ident});"


def guarded(sections: list[tuple[tuple[str, bool] | None, list[str]]], target: Target) -> list[str]:
    """Lines of consecutive statements, each section ``(guard, lines)`` with guard ``(core,
    declares)`` or None (every core); runs of one guard share one ``#if`` (and one subblock
    ``if`` for statements of a vector core)."""
    out: list[str] = []
    k = 0
    while k < len(sections):
        guard, lines = sections[k]
        if guard is None:
            out += lines
            k += 1
            continue
        run: list[str] = []
        while k < len(sections) and sections[k][0] == guard:
            run += sections[k][1]
            k += 1
        core, declares = guard
        sub = None if declares else subblock(core, target)
        out.append(f"#if defined({core_macro(core, target)})  // {core}")
        if sub is not None:
            out.append(f"if (TILESCHED_ON_SUBBLOCK({sub})) {{")
            out += ["  " + line if line else line for line in run]
            out.append("}")
        else:
            out += run
        out.append("#endif")
    return out
