"""Random vector kernels for fuse-tiles' property tests, and an independent last-use checker.

The checker does not use tilesched's liveness analysis: it reads the simulator's unrolled trace
(every executed op with the buffer regions it touches and the ``last_use`` flags lowering copies
from the IR) and, for every executed read, scans the ops that follow, element by element, for a
read of what it read before that is overwritten. That is the contract's definition taken
literally; the analysis must agree with it exactly on these kernels (constant bounds, constant
views and slots).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tilesched.sim.trace import Access, Trace

TILE = 'memref<16x32xf32, "UB">'
ROW = 'memref<16x1xf32, "UB">'
GM_TILE = 'memref<16x32xf32, "GM">'
TILES = 5
ROWS = 2

_BINARY = ("add", "sub", "mul", "max", "min")
_UNARY = ("neg", "abs", "relu", "exp")
_SCALAR = ("adds", "muls", "maxs")
_EXPAND = ("rowexpand_sub", "rowexpand_mul")
_REDUCE = ("rowsum", "rowmax")


# Valid regions of the kernels with ``valid=True``: each compute op uses one class for all its
# operands (the verifier requires provably equal extents): the whole tile, or the views
# ``%t<k><c>`` / ``%r<k><c>`` with valid rows ``%va`` or ``%vb`` (function arguments: never
# proven equal) and valid columns ``%vc``.
VALID_CLASSES = ("", "A", "B")
_VALID_ROWS = {"A": "%va", "B": "%vb"}


@st.composite
def vector_kernel(draw, loop: bool = False, valid: bool = False) -> str:
    """MLIR text of a random kernel on the ascend V pipe (straight-line or one loop); with
    ``valid``, compute ops work on valid regions of the tiles (``VALID_CLASSES``)."""
    slots = draw(st.integers(2, 3)) if loop else 1
    trips = slots if loop else 1
    count = draw(st.integers(3, 12))
    classes = VALID_CLASSES if valid else ("",)
    body = [_op(draw, k, draw(st.sampled_from(classes))) for k in range(count)]
    iv = "%i" if loop else "%c0"
    extra = ", %va: index, %vb: index, %vc: index" if valid else ""
    lines = [
        f'func.func @k(%x: memref<{slots}x16x32xf32, "GM">, %y: memref<{slots}x16x32xf32, "GM">,'
        f' %z: {GM_TILE}{extra}) {{',
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %ctrips = arith.constant {trips} : index",
        "  %s = arith.constant 0.5 : f32",
        *[f"  %t{k} = memref.alloc() : {TILE}" for k in range(TILES)],
        *[f"  %r{k} = memref.alloc() : {ROW}" for k in range(ROWS)],
        f"  tile.load %z, %t0 : {GM_TILE}, {TILE}",
    ]
    for c in classes[1:]:
        rows = _VALID_ROWS[c]
        lines += [f"  %t{k}{c} = tile.view %t{k}[%c0, %c0] valid [{rows}, %vc] {{sizes = "
                  f"array<i64: 16, 32>}} : {TILE} -> {TILE}" for k in range(TILES)]
        lines += [f"  %r{k}{c} = tile.view %r{k}[%c0, %c0] valid [{rows}, %c1] {{sizes = "
                  f"array<i64: 16, 1>}} : {ROW} -> {ROW}" for k in range(ROWS)]
    inner = [
        f'%xs = tile.slot %x[{iv}] : memref<{slots}x16x32xf32, "GM"> -> {GM_TILE}',
        f'%ys = tile.slot %y[{iv}] : memref<{slots}x16x32xf32, "GM"> -> {GM_TILE}',
        *body,
    ]
    if loop:
        lines.append("  scf.for %i = %c0 to %ctrips step %c1 {")
        lines += [f"    {line}" for line in inner]
        lines.append("  }")
    else:
        lines += [f"  {line}" for line in inner]
    lines += [f"  tile.store %t{draw(st.integers(0, TILES - 1))}, %z : {TILE}, {GM_TILE}",
              "  func.return", "}"]
    return "\n".join(lines) + "\n"


def _op(draw, k: int, valid: str = "") -> str:
    """One random op of the body (ops read and write the tiles %t*, rows %r*, slots of GM);
    compute ops use the views of valid-region class ``valid`` (moves and calls whole tiles)."""
    kind = draw(st.sampled_from(["load", "store", "binary", "binary", "unary", "scalar",
                                 "reduce", "expand", "fill", "copy", "call"]))
    valid = valid if kind not in ("load", "store", "copy", "call") else ""
    tile = lambda: f"%t{draw(st.integers(0, TILES - 1))}{valid}"  # noqa: E731
    row = lambda: f"%r{draw(st.integers(0, ROWS - 1))}{valid}"  # noqa: E731
    if kind == "load":
        return f"tile.load %xs, {tile()} : {GM_TILE}, {TILE}"
    if kind == "store":
        return f"tile.store {tile()}, %ys : {TILE}, {GM_TILE}"
    if kind == "binary":
        op = draw(st.sampled_from(_BINARY))
        return f"tile.{op} {tile()}, {tile()}, {tile()} : {TILE}, {TILE}, {TILE}"
    if kind == "unary":
        op = draw(st.sampled_from(_UNARY))
        return f"tile.{op} {tile()}, {tile()} : {TILE}, {TILE}"
    if kind == "scalar":
        op = draw(st.sampled_from(_SCALAR))
        return f"tile.{op} {tile()}, %s, {tile()} : {TILE}, f32, {TILE}"
    if kind == "reduce":
        op = draw(st.sampled_from(_REDUCE))
        return f"tile.{op} {tile()}, {row()} : {TILE}, {ROW}"
    if kind == "expand":
        op = draw(st.sampled_from(_EXPAND))
        return f"tile.{op} {tile()}, {row()}, {tile()} : {TILE}, {ROW}, {TILE}"
    if kind == "fill":
        return f"tile.fill {tile()} {{value = 0.25 : f32}} : {TILE}"
    if kind == "copy":
        return f"tile.copy {tile()}, {tile()} : {TILE}, {TILE}"
    return f'tile.call {tile()} {{callee = "opaque{k}"}} : {TILE}'


# ------------------------------------------------------------------ the independent checker


def _reads_and_writes(op) -> tuple[list[Access], list[Access]]:
    accesses = op.accesses()
    if op.name == "tile.call":  # a call reads every operand it takes; its writes kill nothing
        return [a for a, _ in accesses], []
    return [a for a, w in accesses if not w], [a for a, w in accesses if w]


def _slices(access: Access) -> tuple[slice, ...]:
    return tuple(slice(lo, hi) for lo, hi in access.region)


def true_last_uses(trace: Trace, owned_arguments: frozenset[str] = frozenset()
                   ) -> dict[tuple[str, int], bool]:
    """(op location, memref operand slot) -> is every executed read at that slot a last use?

    A read is a last use when its buffer is local and none of its elements is read by a later
    op before a later op (or the reading op itself) overwrites it; argument buffers are read
    after the function returns, except ``owned_arguments`` (buffer names: on-chip arguments of
    a kernel entry, which die with it). Written slots are never last uses.
    """
    ops = [op for op in next(iter(trace.programs.values())) if not op.is_sync]
    verdict: dict[tuple[str, int], bool] = {}
    for k, op in enumerate(ops):
        if not op.name.startswith("tile.") or op.name in ("tile.call",):
            continue
        memrefs = [o for o in op.operands if isinstance(o, Access)]
        reads, writes = _reads_and_writes(op)
        for slot, access in enumerate(memrefs):
            if access in writes and slot == len(memrefs) - 1:
                verdict[(op.loc, slot)] = False
                continue
            if op.name == "tile.fill":
                continue
            dead = _dead_after(trace, ops, k, access, writes, owned_arguments)
            verdict[(op.loc, slot)] = verdict.get((op.loc, slot), True) and dead
    return verdict


def _dead_after(trace: Trace, ops, k: int, access: Access, own_writes: list[Access],
                owned_arguments: frozenset[str] = frozenset()) -> bool:
    buffer = trace.buffers[access.buffer]
    if buffer.is_argument and buffer.name not in owned_arguments:
        return False
    live = np.zeros(buffer.shape, dtype=bool)
    live[_slices(access)] = True
    for write in own_writes:
        if write.buffer == access.buffer:
            live[_slices(write)] = False
    for later in ops[k + 1:]:
        if not live.any():
            return True
        reads, writes = _reads_and_writes(later)
        if any(r.buffer == access.buffer and live[_slices(r)].any() for r in reads):
            return False
        for write in writes:
            if write.buffer == access.buffer:
                live[_slices(write)] = False
    return True


def flags_in_trace(trace: Trace) -> dict[tuple[str, int], bool]:
    """(op location, slot) -> the last-use flag the IR gave it (ops with flags only)."""
    found = {}
    for op in next(iter(trace.programs.values())):
        flags = op.props.get("last_use")
        if flags is not None:
            for slot, flag in enumerate(flags):
                found[(op.loc, slot)] = bool(flag)
    return found
