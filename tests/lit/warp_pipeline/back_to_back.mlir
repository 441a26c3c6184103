// Back-to-back loop pipelines. @no_dep: the second pipeline touches none of the first's LDS, so
// the postlude/prelude pair between them goes (one phase shift before the first loop, one
// reconvergence after the second). @dep_first_stage: the second loop's first stage overwrites
// the LDS tile the first loop's last stage reads: kept. @dep_later_stage: the conflicting write
// is in the second loop's *third* stage (the anchor once checked only the first): with no
// local barrier in between, kept as well. @dep_covered: the same kind of dependence, but the
// first loop's wrap-around barrier is local anyway (its own dependences: each iteration's stage
// "a1" fills the slot the next one reads): joined.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p "warp-pipeline{back-to-back=false}" --target amd-gfx950 | %filecheck %s --check-prefix=OFF
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --function dep_covered | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --function dep_later_stage | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// OFF-COUNT-8: sync.cond_barrier "high"
// OFF-NOT:     sync.cond_barrier "high"
func.func @no_dep(%n: index, %g: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %b = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @no_dep
  // CHECK:       sync.cond_barrier "high"
  // CHECK-NEXT:  scf.for
  // CHECK:       }
  // CHECK-NEXT:  scf.for
  // CHECK:       }
  // CHECK-NEXT:  sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "a0"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a1"
  }
  scf.for %j = %c0 to %n step %c1 {
    tile.copy %b, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "b0"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b1"
  }
  func.return
}

func.func @dep_first_stage(%n: index, %g: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @dep_first_stage
  // CHECK:       }
  // CHECK-NEXT:  sync.cond_barrier "low"
  // CHECK-NEXT:  sync.barrier local
  // CHECK-NEXT:  sync.cond_barrier "high"
  // CHECK-NEXT:  scf.for
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a0"
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "a1"
  }
  scf.for %j = %c0 to %n step %c1 {
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "b0"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b1"
  }
  func.return
}

func.func @dep_later_stage(%n: index, %g: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @dep_later_stage
  // CHECK:       }
  // CHECK-NEXT:  sync.cond_barrier "low"
  // CHECK-NEXT:  sync.barrier local
  // CHECK-NEXT:  sync.cond_barrier "high"
  // CHECK-NEXT:  scf.for
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a0"
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "a1"
  }
  scf.for %j = %c0 to %n step %c1 {
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b0"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b1"
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "b2"
  }
  func.return
}

func.func @dep_covered(%n: index, %g: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %d0 = tile.slot %d[%c0] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
  // CHECK-LABEL: func.func @dep_covered
  // CHECK:       sync.cond_barrier "high"
  // CHECK-NEXT:  scf.for
  // CHECK:         sync.barrier local
  // CHECK-NEXT:    sync.sched_barrier
  // CHECK-NEXT:  }
  // CHECK-NEXT:  scf.for
  // CHECK:       }
  // CHECK-NEXT:  sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    %m = arith.remui %i, %c2 : index
    %i1 = arith.addi %i, %c1 : index
    %k = arith.remui %i1, %c2 : index
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a0"
    %cur = tile.slot %d[%m] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    %next = tile.slot %d[%k] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    tile.copy %cur, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.copy %r, %next : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    tile.stage_border "a1"
  }
  scf.for %j = %c0 to %n step %c1 {
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b0"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b1"
    tile.load %g, %d0 : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "b2"
  }
  func.return
}
