"""Kernels of the simulator benchmark (bench_sim.py), built from the bundled examples.

- :func:`gemm` - ``ascend_gemm`` with ``blocks`` K blocks, software-pipelined and synchronized
  (``modulo-schedule,software-pipeline,insert-sync``): a pipelined GEMM.
- :func:`attention` - ``ascend_attention`` over ``blocks`` sequence blocks of 64 query rows, with
  the P hand-off workspace as a two-slot ring (rows ``(qb mod 2) * 64``) instead of one slot per
  block, pipelined and synchronized the same way.
- :func:`cuda_gemm` - ``cuda_gemm`` with ``blocks`` K blocks, synchronized by ``insert-sync``.
- :func:`amd_loop` - a two-group AMD loop (global -> LDS slot, local barrier, LDS -> registers,
  matmul, barrier), written with the DSL: warp-pipeline is not a pass of this build yet.
- :func:`late_fault` / :func:`leak_every` - a double-buffered stream synchronized by insert-sync
  with a deadlock, a leaked flag or a race at iteration 1000, or a flag leaked every iteration.
- :func:`distinct_tiles` - straight-line code touching ``statements`` distinct UB tiles of one
  buffer, each load -> flag -> vector op -> flag -> store, a ``barrier_all`` every 8 statements
  (event ids 0..7 reused): the verification-cost scaling case.
"""

from __future__ import annotations

from tilesched.examples import example_path
from tilesched.ir import parse_text, print_module
from tilesched.ir.dsl import Kernel
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

PIPELINE = "modulo-schedule,software-pipeline,insert-sync"


def _synchronized(text: str, target: str, pipeline: str = PIPELINE) -> str:
    module = parse_text(text, "bench.mlir")
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(load_target(target)))
    return print_module(module)


def _scaled(name: str, blocks: int, trip: str, shapes: list[tuple[str, str]]) -> str:
    text = example_path(name).read_text()
    assert trip in text
    text = text.replace(trip, trip.rsplit(" ", 2)[0] + f" {blocks} :")
    for before, after in shapes:
        assert before in text
        text = text.replace(before, after)
    return text


def gemm(blocks: int) -> str:
    """The pipelined Ascend GEMM over ``blocks`` K blocks (MLIR text)."""
    text = _scaled("ascend_gemm", blocks, "%c8 = arith.constant 8 :",
                   [("128x512xf16", f"128x{64 * blocks}xf16"),
                    ("512x128xf16", f"{64 * blocks}x128xf16")])
    return _synchronized(text, "ascend-a2")


def attention(blocks: int) -> str:
    """The pipelined Ascend attention over ``blocks`` sequence blocks (MLIR text)."""
    rows = 64 * blocks
    text = _scaled("ascend_attention", blocks, "%c4 = arith.constant 4 :",
                   [("256x64xf16", f"{rows}x64xf16"), ("256x64xf32", f"{rows}x64xf32"),
                    ("%ws: memref<256x128xf16", "%ws: memref<128x128xf16"),
                    ("memref<256x128xf16, \"GM\"> -> memref<64x128xf16", "memref<128x128xf16, "
                     "\"GM\"> -> memref<64x128xf16")])
    ring = ("      %wslot = arith.remui %qb, %c2 : index\n"
            "      %wrow = arith.muli %wslot, %c64 : index\n"
            "      %ws_blk = tile.view %ws[%wrow, %c0]")
    text = text.replace("      %ws_blk = tile.view %ws[%row, %c0]", ring)
    text = text.replace("    %c1 = arith.constant 1 : index\n",
                        "    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n", 1)
    return _synchronized(text, "ascend-a2")


def cuda_gemm(blocks: int) -> str:
    """The CUDA cp.async GEMM over ``blocks`` K blocks, synchronized (MLIR text)."""
    text = _scaled("cuda_gemm", blocks, "%c8 = arith.constant 8 :",
                   [("128x256xf16", f"128x{32 * blocks}xf16"),
                    ("256x128xf16", f"{32 * blocks}x128xf16")])
    return _synchronized(text, "cuda-sm80", "insert-sync")


def amd_loop(blocks: int) -> str:
    """Two AMD issuer groups staging tiles through LDS with barriers (MLIR text)."""
    k = Kernel("amd_loop", target="amd-gfx950")
    a = k.arg("a", (32 * (blocks + 1), 32), "f16", "global")
    lds = k.alloc((2, 32, 32), "f16", "LDS", name="lds")
    reg = k.alloc((32, 32), "f16", "local", name="reg")
    acc = k.alloc((32, 32), "f32", "local", name="acc")
    k.fill(acc, 0.0)
    for i in k.range(blocks, name="kb"):
        slot = lds.slot(i % 2)
        k.load(a.view((i * 32, 0), (32, 32)), slot)
        k.barrier(local=True)
        k.copy(slot, reg)
        k.barrier(local=True)
        k.matmul(reg, reg, acc, accumulate=True)
        k.barrier()
    return k.text() if hasattr(k, "text") else print_module(k.module())


def distinct_tiles(statements: int, tiles: int = 1000) -> str:
    """Straight-line Ascend code: ``statements`` load -> exp -> store chains over ``tiles``
    distinct 4x16 tiles of one UB buffer (tile ``s mod tiles``), flags between the units and a
    ``barrier_all`` every 8 statements (event ids 0..7 reused). Written as text: building
    50k statements with the DSL would take minutes."""
    g, u, t = (f'memref<{4 * tiles}x16xf16, "GM">', f'memref<{4 * tiles}x16xf16, "UB">',
               'memref<4x16xf16, "{}">')
    lines = [f"func.func @tiles(%gm: {g}, %out: {g}) {{", "  %c0 = arith.constant 0 : index",
             f"  %ub = memref.alloc() : {u}"]
    lines += [f"  %r{k} = arith.constant {4 * k} : index" for k in range(min(tiles, statements))]
    flag = '  "sync.{}"() {{src = "{}", dst = "{}", event = {} : i64}} : () -> ()'
    for s in range(statements):
        row = f"%r{s % tiles}"
        lines += [f"  %a{s} = tile.view %gm[{row}, %c0] {{sizes = array<i64: 4, 16>}} : "
                  f"{g} -> {t.format('GM')}",
                  f"  %u{s} = tile.view %ub[{row}, %c0] {{sizes = array<i64: 4, 16>}} : "
                  f"{u} -> {t.format('UB')}",
                  f"  %o{s} = tile.view %out[{row}, %c0] {{sizes = array<i64: 4, 16>}} : "
                  f"{g} -> {t.format('GM')}",
                  f"  tile.load %a{s}, %u{s} : {t.format('GM')}, {t.format('UB')}",
                  flag.format("set_flag", "MTE2", "V", s % 8),
                  flag.format("wait_flag", "MTE2", "V", s % 8),
                  f"  tile.exp %u{s}, %u{s} : {t.format('UB')}, {t.format('UB')}",
                  flag.format("set_flag", "V", "MTE3", s % 8),
                  flag.format("wait_flag", "V", "MTE3", s % 8),
                  f"  tile.store %u{s}, %o{s} : {t.format('UB')}, {t.format('GM')}"]
        if s % 8 == 7:
            lines.append('  "sync.barrier_all"() : () -> ()')
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def late_fault(trips: int, fault: str, at: int = 1000) -> str:
    """A double-buffered MTE2 -> V -> MTE3 stream over ``trips`` blocks synchronized by
    ``insert-sync`` (no ``barrier_all`` in the loop: the issuer runs ahead of its units), with
    one fault at iteration ``at`` (``scf.if %i == at``): ``deadlock`` waits for an event id
    nothing ever sets, ``leak`` sets a flag nothing ever waits for, ``race`` writes the V
    unit's output tile from MTE2 without a flag."""
    k = Kernel("late", target="ascend-a2")
    x = k.arg("x", (16 * (trips + 1), 16), "f16", "GM")
    y = k.arg("y", (16 * (trips + 1), 16), "f16", "GM")
    ub = k.alloc((2, 16, 16), "f16", "UB", name="ub")
    out = k.alloc((2, 16, 16), "f16", "UB", name="out")
    for i in k.range(trips, name="i"):
        k.load(x.view((i * 16, 0), (16, 16)), ub.slot(i % 2))
        k.exp(ub.slot(i % 2), out.slot(i % 2))
        k.store(out.slot(i % 2), y.view((i * 16, 0), (16, 16)))
    module = k.module()
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(load_target("ascend-a2")))
    text = print_module(module)
    fault_ops = {
        "deadlock": 'sync.wait_flag "MTE3" -> "V", 5',
        "leak": 'sync.set_flag "MTE2" -> "MTE3", 6',
        "race": None,
    }
    marker = "tile.store"
    assert text.count(marker) == 1
    if fault == "race":
        inject = ("%late_src = tile.view %x[%c0_late, %c0_late] {sizes = array<i64: 16, 16>} : "
                  "memref<" + f"{16 * (trips + 1)}" + 'x16xf16, "GM"> -> memref<16x16xf16, "GM">\n'
                  "        %late_dst = tile.slot %out[%c0_late] : memref<2x16x16xf16, \"UB\"> -> "
                  "memref<16x16xf16, \"UB\">\n"
                  "        tile.load %late_src, %late_dst : memref<16x16xf16, \"GM\">, "
                  "memref<16x16xf16, \"UB\">")
    else:
        inject = fault_ops[fault]
    lines = text.splitlines()
    index = next(n for n, line in enumerate(lines) if marker in line)
    indent = lines[index][:len(lines[index]) - len(lines[index].lstrip())]
    block = [f"{indent}%late = arith.cmpi eq, %i, %c_late : index",
             f"{indent}scf.if %late {{",
             *[f"{indent}  {line.strip()}" for line in inject.splitlines()],
             f"{indent}}}"]
    lines[index:index] = block
    body = next(n for n, line in enumerate(lines) if "func.func" in line)
    lines[body + 1:body + 1] = [f"    %c_late = arith.constant {at} : index",
                                "    %c0_late = arith.constant 0 : index"]
    return "\n".join(lines) + "\n"


def leak_every(trips: int) -> str:
    """The same stream with a flag set every iteration and never waited for: the state grows
    every iteration, so the loop cannot be extrapolated and ``--max-ops`` refuses it."""
    text = late_fault(trips, "leak", at=0)
    return text.replace("%late = arith.cmpi eq, %i, %c_late : index",
                        "%late = arith.cmpi sge, %i, %c_late : index")
