// Flat pipelines next to loop pipelines (the anchor joined loop->loop and loop->flat only).
// @flat_then_loop: a flat pipeline's closing barrier becomes the boundary to the loop, no
// reconvergence/phase shift in between; it is made local here because the loop's second stage
// reads the LDS tile the flat pipeline's last stage writes (the other group too). @loop_then_flat: the
// loop's wrap-around barrier is the boundary. @flat_flat: stages of two unrolled loops in a row
// are one flat pipeline, so the boundary between them is an ordinary cluster barrier instead of
// a reconvergence and a new phase shift; the dependences that cross it (each slot is read two
// stages after it is filled) make the barriers before "fill1" and "read0" local.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --function loop_then_flat | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function flat_flat | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @flat_then_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @flat_then_loop
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: tile.exp %s, %s
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier{{$}}
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: tile.copy %r, %a
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier local
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: scf.for
  // CHECK:      }
  // CHECK-NEXT: sync.cond_barrier "low"
  // CHECK-NOT:  sync.cond_barrier
  tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "f0"
  tile.copy %r, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
  tile.stage_border "f1"
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "l0"
    tile.copy %a, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "l1"
  }
  func.return
}

func.func @loop_then_flat(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @loop_then_flat
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: scf.for
  // CHECK:      }
  // CHECK-NEXT: tile.exp %s, %s
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier{{$}}
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: tile.exp %s, %s
  // CHECK-NEXT: sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "l0"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "l1"
  }
  tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "f0"
  tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "f1"
  func.return
}

func.func @flat_flat(%g: memref<2x64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @flat_flat
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: tile.load
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier local
  // CHECK:      tile.load
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier local
  // CHECK:      tile.copy
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier{{$}}
  // CHECK:      tile.copy
  // CHECK-NEXT: sync.cond_barrier "low"
  // CHECK-NOT:  sync.cond_barrier
  // first unrolled loop: fill both slots
  %g0 = tile.slot %g[%c0] : memref<2x64x64xf16, "global"> -> memref<64x64xf16, "global">
  %a0 = tile.slot %a[%c0] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
  tile.load %g0, %a0 : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  tile.stage_border "fill0"
  %g1 = tile.slot %g[%c1] : memref<2x64x64xf16, "global"> -> memref<64x64xf16, "global">
  %a1 = tile.slot %a[%c1] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
  tile.load %g1, %a1 : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  tile.stage_border "fill1"
  // second unrolled loop: read them
  tile.copy %a0, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
  tile.stage_border "read0"
  tile.copy %a1, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
  tile.stage_border "read1"
  func.return
}
