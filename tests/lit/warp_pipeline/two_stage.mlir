// Two-stage loop (stage 0 fills the other slot of a double buffer and reads the current one):
// prelude (local barrier, high-group phase shift), one cluster barrier between the stages and
// the wrap-around one at the end of the body, postlude (low group). The LDS->register copy is
// complete only at the next local barrier, so the barrier before its consumer is local; that
// barrier also orders the slot written in iteration i before its read in iteration i+1.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
func.func @two_stage(%g: memref<4x64x64xf16, "global">, %o: memref<64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %lds = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %acc = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      sync.barrier local
  // CHECK-NEXT: sync.cond_barrier "high"
  // CHECK-NEXT: scf.for
  // CHECK:        tile.load
  // CHECK:        tile.copy
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.add
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.cond_barrier "low"
  // CHECK-NOT:  tile.stage_border
  scf.for %i = %c0 to %c4 step %c1 {
    %gi = tile.slot %g[%i] : memref<4x64x64xf16, "global"> -> memref<64x64xf16, "global">
    %i1 = arith.addi %i, %c1 : index
    %next = arith.remui %i1, %c2 : index
    %cur = arith.remui %i, %c2 : index
    %ln = tile.slot %lds[%next] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    %lc = tile.slot %lds[%cur] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    tile.load %gi, %ln : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.copy %lc, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "load"
    tile.add %acc, %r, %acc : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "compute"
  }
  tile.store %acc, %o : memref<64x64xf16, "local">, memref<64x64xf16, "global">
  func.return
}
