"""LDS dependences between warp-pipeline stages: per pair of issuer groups, smallest distance,
exact slot disjointness, effects in conditionals, the simulator's cooperation model."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

from tilesched.analysis.regions import Interval, Region
from tilesched.analysis.stage_dependences import group_share, stage_accesses, stage_pairs
from tilesched.examples import example_path
from tilesched.ir import parse_file, parse_text
from tilesched.ir.affine import Affine
from tilesched.ir.tile import StageBorderOp
from tilesched.sim.trace import group_share as sim_group_share
from tilesched.target import load_target

TARGET = load_target("amd-gfx950")


def _loop_stages(module) -> tuple[scf.ForOp, list[list]]:
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    stages, current = [], []
    for op in loop.body.block.ops:
        if isinstance(op, StageBorderOp):
            stages.append(current)
            current = []
        elif not isinstance(op, scf.YieldOp):
            current.append(op)
    return loop, stages


def _summary(pairs) -> set[tuple]:
    return {(p.x.op.name, p.x.stage, p.y.op.name, p.y.stage, p.groups, p.distance) for p in pairs}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(1, 9)), min_size=1, max_size=3),
       st.integers(0, 1))
def test_group_share_is_the_simulators(dims, group):
    region = Region(None, tuple(Interval(Affine(lo), size) for lo, size in dims))
    concrete = tuple((lo, lo + size) for lo, size in dims)
    ours = group_share(region, group)
    expected = sim_group_share(concrete, group, 2)
    got = None if ours is None else tuple((d.start.const, d.start.const + d.size) for d in ours.dims)
    assert got == expected


def test_double_buffered_gemm_dependences():
    loop, stages = _loop_stages(parse_file(str(example_path("amd_gemm"))))
    pairs = stage_pairs(stage_accesses(stages, TARGET), len(stages), loop)
    found = _summary(pairs)
    # the prefetch into slot (k+1) mod 2 and the read of slot k mod 2 never meet in one
    # iteration; the read of iteration k+1 is 4 stage instances after the write (RAW) ...
    assert ("tile.load", 0, "tile.copy", 1, (1, 0), 4) in found
    assert not any(x == "tile.load" and y == "tile.copy" and d == 1 for x, _, y, _, _, d in found)
    # ... the slot read in iteration k is overwritten by the prefetch of iteration k+1 (WAR)
    assert ("tile.copy", 1, "tile.load", 0, (1, 0), 2) in found
    # the ds_read copies feed the mfma of the same group one stage later through registers: the
    # group's own wait (s_waitcnt) orders that, so it is no stage dependence (no local barrier)
    assert not any(x == "tile.copy" and y == "tile.matmul" for x, _, y, _, _, _ in found)


def test_single_buffer_conflicts_at_distance_one():
    text = """
func.func @k(%g: memref<64x64xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "w"
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "r"
  }
  func.return
}
"""
    loop, stages = _loop_stages(parse_text(text))
    found = _summary(stage_pairs(stage_accesses(stages, TARGET), 2, loop))
    assert ("tile.load", 0, "tile.copy", 1, (1, 0), 1) in found  # high writes while low reads
    assert ("tile.copy", 1, "tile.load", 0, (1, 0), 1) in found  # and around the back edge


def test_effects_inside_conditionals_and_private_tiles():
    text = """
func.func @k(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    }
    tile.stage_border "x"
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "y"
  }
  func.return
}
"""
    loop, stages = _loop_stages(parse_text(text))
    accesses = stage_accesses(stages, TARGET)
    copy_write = next(a for a in accesses if a.op.name == "tile.copy" and a.write)
    assert copy_write.asynchronous and copy_write.share == "private"
    found = _summary(stage_pairs(accesses, 2, loop))
    # a private tile conflicts only within a group, and the group's own LDS copy into registers
    # completes at its consumer (per-wave s_waitcnt, DESIGN.md section 4): the exp one stage
    # later needs no barrier, so no pair involves it
    assert not any("tile.exp" in (x, y) for x, _, y, _, _, _ in found)
