// Effects nested in scf.if count (the anchor once missed them): the LDS tile written by a copy
// inside a conditional in stage 0 is read in stage 2 (by the other group too), so the barrier
// before stage 1 is local (and the one before stage 3: the read precedes the next iteration's
// write); without the dependence (@independent, stage 2 reads another tile) all stay plain.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --arg c=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --arg c=1 --function independent | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @nested(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @nested
  // CHECK:        scf.if
  // CHECK-NEXT:     tile.copy %r, %a
  // CHECK-NEXT:   }
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.copy %a, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.exp %s, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.copy %r, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    }
    tile.stage_border "maybe_write"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    tile.copy %a, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "read"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "use"
  }
  func.return
}

func.func @independent(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %b = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @independent
  // CHECK:        sync.cond_barrier "high"
  // CHECK-NOT:    sync.barrier local
  // CHECK:        func.return
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.copy %r, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    }
    tile.stage_border "maybe_write"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    tile.copy %b, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "read"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "use"
  }
  func.return
}
