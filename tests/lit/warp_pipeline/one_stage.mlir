// Fewer than two stages: nothing is pipelined (no prelude, no cluster barrier, no postlude);
// the borders go, and the LDS dependence gets an ordinary local barrier as insert-sync would.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// CHECK-NOT: sync.cond_barrier
// CHECK-NOT: tile.stage_border
func.func @one(%n: index, %g: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      scf.for
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   tile.load
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   tile.copy
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "only"
  }
  // CHECK:      tile.exp
  // CHECK-NEXT: func.return
  tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "only_flat"
  func.return
}
