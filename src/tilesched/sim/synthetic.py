"""Hand-written traces of the three sync families, for tests, benchmarks and documentation.

The machine models here mirror the built-in targets' units and sync limits (``target/builtin``)
so that the simulator can be exercised without IR. The Ascend trace's durations come from the
target's own latency model (:meth:`tilesched.target.model.Target.cycles`, what the simulator
charges the same ops written as IR); the CUDA and AMD traces use a simple hand-picked
``fixed + bytes / bandwidth``. Each kernel is a correctly
synchronized software pipeline; its keyword arguments break it in the ways DESIGN.md's acceptance
list names (missing flag, wrong ``wait_group`` count, missing ``local`` barrier...).
"""

from __future__ import annotations

import functools
import math

from tilesched.sim.trace import MachineModel, Trace, TraceBuilder, UnitSpec
from tilesched.target import OperandShape, load_target


def ascend_machine(event_limit: int = 8, pipelined: tuple[str, ...] = ()) -> MachineModel:
    """Ascend AI core: scalar issuer S feeding the MTE1/MTE2/MTE3/M/V/FIX pipes."""
    units = {"S": UnitSpec("inline")}
    for name in ("MTE1", "MTE2", "MTE3", "M", "V", "FIX"):
        units[name] = UnitSpec("queued", name in pipelined)
    return MachineModel("ascend-a2" if event_limit == 8 else "ascend-910a", units, ("S",),
                        event_limit, issue_cost=1)


def cuda_machine() -> MachineModel:
    """CUDA thread block: issuer T runs everything inline except cp.async on group queue 0."""
    units = {"T": UnitSpec("inline"), "ASYNC0": UnitSpec("async")}
    return MachineModel("cuda-sm80", units, ("T",), None, {0: "ASYNC0"}, issue_cost=1,
                        private_spaces=("local",))


def amd_machine() -> MachineModel:
    """AMD workgroup: groups low/high share the SIMD; LDS ops complete at local barriers."""
    units = {"SIMD": UnitSpec("inline"), "LDS": UnitSpec("lds")}
    return MachineModel("amd-gfx950", units, ("low", "high"), None, issue_cost=1,
                        private_spaces=("local",))


def _cycles(shape: tuple[int, ...], element_bytes: int, fixed: int, per_cycle: float) -> int:
    """``fixed + ceil(bytes / bytes_per_cycle)`` (the hand-picked CUDA and AMD durations)."""
    return fixed + math.ceil(math.prod(shape) * element_bytes / per_cycle)


@functools.cache
def _target(name: str):
    return load_target(name)


def _target_cycles(target_name: str, op: str, spaces: tuple[str, ...],
                   operands: list[tuple[tuple[int, ...], str]]) -> int:
    """What target ``target_name`` charges ``op`` moving ``operands`` ((shape, MLIR dtype), last
    written) between ``spaces`` (one per operand)."""
    target = _target(target_name)
    rule = target.route(op, spaces[:-1], spaces[-1])
    shapes = [OperandShape(shape, {"f16": 2, "f32": 4}[dtype], dtype) for shape, dtype in operands]
    return target.cycles(op, rule, shapes)


def ascend_gemm(iters: int, tile: int = 64, *, event_limit: int = 8, back_edge: bool = True,
                forward_flag: bool = True, drain: bool = True, event_base: int = 0) -> Trace:
    """A double-buffered GEMM K loop: GM -MTE2-> L1 -MTE1-> L0A/L0B -M-> L0C -FIX-> GM.

    Flags: MTE2->MTE1 (L1 slot full), MTE1->M (L0 slot full), and the back edges MTE1->MTE2 /
    M->MTE1 (slot free again), events ``event_base + slot``. ``back_edge=False`` drops the back
    edges (a loop-carried WAR race); ``forward_flag=False`` drops the MTE1->M flag (a RAW race);
    ``drain=False`` leaves the last back-edge flags set at the end.
    """
    b = TraceBuilder(ascend_machine(event_limit))
    t = tile
    a_gm = b.buffer("A", (t, t * iters), "float16", "GM", True)
    b_gm = b.buffer("B", (t * iters, t), "float16", "GM", True)
    c_gm = b.buffer("C", (t, t), "float32", "GM", True)
    l1a, l1b = b.buffer("l1a", (2, t, t), "float16", "L1"), b.buffer("l1b", (2, t, t), "float16", "L1")
    l0a, l0b = b.buffer("l0a", (2, t, t), "float16", "L0A"), b.buffer("l0b", (2, t, t), "float16", "L0B")
    l0c = b.buffer("l0c", (t, t), "float32", "L0C")
    name = b.machine.name
    half, acc = ((t, t), "f16"), ((t, t), "f32")
    load = _target_cycles(name, "tile.load", ("GM", "L1"), [half, half])
    copy_a = _target_cycles(name, "tile.copy", ("L1", "L0A"), [half, half])
    copy_b = _target_cycles(name, "tile.copy", ("L1", "L0B"), [half, half])
    mm = _target_cycles(name, "tile.matmul", ("L0A", "L0B", "L0C"), [half, half, acc])
    store = _target_cycles(name, "tile.store", ("L0C", "GM"), [acc, acc])

    def flag(kind: str, src: str, dst: str, slot: int, loc: str) -> None:
        """Append a set_flag / wait_flag on the event of ``slot``."""
        b.op(f"sync.{kind}", props={"src": src, "dst": dst, "event": event_base + slot}, loc=loc)

    for i in range(iters):
        s = i % 2
        if back_edge and i >= 2:
            flag("wait_flag", "MTE1", "MTE2", s, "gemm:10:3")
        b.op("tile.load", "MTE2", load, [b.tile(a_gm, (0, i * t), (t, t)), b.slot(l1a, s)], loc="gemm:11:3")
        b.op("tile.load", "MTE2", load, [b.tile(b_gm, (i * t, 0), (t, t)), b.slot(l1b, s)], loc="gemm:12:3")
        flag("set_flag", "MTE2", "MTE1", s, "gemm:13:3")
        flag("wait_flag", "MTE2", "MTE1", s, "gemm:14:3")
        if back_edge and i >= 2:
            flag("wait_flag", "M", "MTE1", s, "gemm:15:3")
        b.op("tile.copy", "MTE1", copy_a, [b.slot(l1a, s), b.slot(l0a, s)], loc="gemm:16:3")
        b.op("tile.copy", "MTE1", copy_b, [b.slot(l1b, s), b.slot(l0b, s)], loc="gemm:17:3")
        if back_edge:
            flag("set_flag", "MTE1", "MTE2", s, "gemm:18:3")
        if forward_flag:
            flag("set_flag", "MTE1", "M", s, "gemm:19:3")
            flag("wait_flag", "MTE1", "M", s, "gemm:20:3")
        b.op("tile.matmul", "M", mm, [b.slot(l0a, s), b.slot(l0b, s), b.whole(l0c)],
             {"accumulate": i > 0}, loc="gemm:21:3")
        if back_edge:
            flag("set_flag", "M", "MTE1", s, "gemm:22:3")
    if back_edge and drain:
        for i in range(max(0, iters - 2), iters):
            flag("wait_flag", "MTE1", "MTE2", i % 2, "gemm:25:3")
            flag("wait_flag", "M", "MTE1", i % 2, "gemm:26:3")
    flag("set_flag", "M", "FIX", 0, "gemm:28:3")
    flag("wait_flag", "M", "FIX", 0, "gemm:29:3")
    b.op("tile.store", "FIX", store, [b.whole(l0c), b.whole(c_gm)], loc="gemm:30:3")
    return b.build()


def cuda_pipeline(iters: int, stages: int = 3, tile: int = 32, *, pending: int | None = None) -> Trace:
    """A cp.async multi-stage loop: async global->shared loads, commit, wait_group, inline matmul.

    Each iteration issues the copies for ``stages - 1`` iterations ahead, commits, then waits with
    ``pending`` (default ``stages - 1``: the group of the current iteration is complete); a larger
    value lets the matmul read a slot whose copy may still be in flight.
    """
    b = TraceBuilder(cuda_machine())
    t = tile
    a_gm = b.buffer("A", (t, t * iters), "float16", "global", True)
    w_gm = b.buffer("W", (t * iters, t), "float16", "global", True)
    c_gm = b.buffer("C", (t, t), "float32", "global", True)
    sa = b.buffer("sa", (stages, t, t), "float16", "shared")
    sw = b.buffer("sw", (stages, t, t), "float16", "shared")
    acc = b.buffer("acc", (t, t), "float32", "local")
    pending = stages - 1 if pending is None else pending
    load = _cycles((t, t), 2, 300, 32)
    mm = 4 + math.ceil(t ** 3 / 1024)

    def issue(k: int) -> None:
        """The cp.async copies of K block ``k`` into slot ``k % stages``."""
        s = k % stages
        b.op("tile.load", "ASYNC0", load, [b.tile(a_gm, (0, k * t), (t, t)), b.slot(sa, s)],
             async_queue=0, loc="cuda:5:5")
        b.op("tile.load", "ASYNC0", load, [b.tile(w_gm, (k * t, 0), (t, t)), b.slot(sw, s)],
             async_queue=0, loc="cuda:6:5")

    b.op("tile.fill", "T", 4 + t * t * 4 // 128, [b.whole(acc)], {"value": 0.0}, loc="cuda:2:3")
    for k in range(min(stages - 1, iters)):
        issue(k)
        b.op("sync.commit_group", props={"queue": 0}, loc="cuda:7:5")
    for i in range(iters):
        if i + stages - 1 < iters:
            issue(i + stages - 1)
        b.op("sync.commit_group", props={"queue": 0}, loc="cuda:10:5")
        b.op("sync.wait_group", props={"queue": 0, "pending": pending}, loc="cuda:11:5")
        b.op("tile.matmul", "T", mm, [b.slot(sa, i % stages), b.slot(sw, i % stages), b.whole(acc)],
             {"accumulate": True}, loc="cuda:12:5")
    b.op("tile.store", "T", _cycles((t, t), 4, 20, 32), [b.whole(acc), b.whole(c_gm)], loc="cuda:14:3")
    return b.build()


def amd_lds_gemm(iters: int, tile: int = 32, *, slots: int = 2, local_barrier: bool = True,
                 second_barrier: bool = True) -> Trace:
    """Two issuer groups stage the W tile through LDS (``slots`` buffers) and multiply.

    Per iteration: global -> registers (inline), registers -> LDS slot (LDS op), a ``local``
    barrier, LDS slot -> registers (LDS op), a ``local`` barrier, matmul (inline). With
    ``local_barrier=False`` the first barrier does not complete the LDS writes (the other group
    may read the slot before it is written); ``second_barrier=False`` drops the second barrier,
    so the matmul reads registers an LDS read may still be writing.
    """
    b = TraceBuilder(amd_machine())
    t = tile
    a_gm = b.buffer("A", (t, t * iters), "float16", "global", True)
    w_gm = b.buffer("W", (t * iters, t), "float16", "global", True)
    c_gm = b.buffer("C", (t, t), "float32", "global", True)
    lds_w = b.buffer("lds_w", (slots, t, t), "float16", "LDS")
    ra, rw, rb = (b.buffer(n, (t, t), "float16", "local") for n in ("ra", "rw", "rb"))
    acc = b.buffer("acc", (t, t), "float32", "local")
    load = _cycles((t, t), 2, 500, 64)
    lds = _cycles((t, t), 2, 64, 128)
    b.op("tile.fill", "SIMD", 8, [b.whole(acc)], {"value": 0.0}, loc="amd:2:3")
    for i in range(iters):
        s = i % slots
        b.op("tile.load", "SIMD", load, [b.tile(a_gm, (0, i * t), (t, t)), b.whole(ra)], loc="amd:4:5")
        b.op("tile.load", "SIMD", load, [b.tile(w_gm, (i * t, 0), (t, t)), b.whole(rw)], loc="amd:5:5")
        b.op("tile.copy", "LDS", lds, [b.whole(rw), b.slot(lds_w, s)], lds=True, loc="amd:6:5")
        b.op("sync.barrier", props={"local": local_barrier}, loc="amd:7:5")
        b.op("tile.copy", "LDS", lds, [b.slot(lds_w, s), b.whole(rb)], lds=True, loc="amd:8:5")
        if second_barrier:
            b.op("sync.barrier", props={"local": True}, loc="amd:9:5")
        b.op("tile.matmul", "SIMD", 4 + math.ceil(t ** 3 / 2048),
             [b.whole(ra), b.whole(rb), b.whole(acc)], {"accumulate": True}, loc="amd:10:5")
    b.op("sync.barrier", props={"local": True}, loc="amd:11:3")
    b.op("tile.store", "SIMD", _cycles((t, t), 4, 100, 64), [b.whole(acc), b.whole(c_gm)],
         loc="amd:12:3")
    return b.build(replicate=True)
