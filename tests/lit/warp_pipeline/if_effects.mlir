// Effects nested in scf.if count (the anchor once missed them): the register tile written by an
// LDS copy inside a conditional in stage 0 is read in stage 1, so the barrier between them is
// local; without the dependence (@independent) it stays plain.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
func.func @nested(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @nested
  // CHECK:        scf.if
  // CHECK-NEXT:     tile.copy %a, %r
  // CHECK-NEXT:   }
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    }
    tile.stage_border "maybe_read"
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "use"
  }
  func.return
}

func.func @independent(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %t = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @independent
  // CHECK:        scf.if
  // CHECK-NEXT:     tile.copy %a, %r
  // CHECK-NEXT:   }
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    }
    tile.stage_border "maybe_read"
    tile.exp %t, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "other"
  }
  func.return
}
