// Adjacent stages: the register tile a stage's LDS copy fills is consumed by the next stage, so
// the barrier between them is local (the copy completes only there). One LDS buffer written by
// stage 0 and read by stage 1 is different: those stages run at the same time on the two groups,
// so no barrier can order them; an error names both stages (see adjacent_stages_error.mlir).
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
func.func @adjacent(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %t = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      scf.for
  // CHECK-NEXT:   tile.copy %a, %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %r, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %t
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "ds_read"
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    tile.exp %s, %t : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "more_math"
  }
  func.return
}
