// Existing barriers between stages are the cluster barriers there: kept, fenced by
// sched_barrier, and made local where the dependences need it (the anchor's FIXME: it wrapped a
// plain barrier where a local one was needed). A barrier at the top of the body is the
// wrap-around one: it moves to the end of the body. A sched_barrier between stages stays.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %tilesched sim - --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// Here stage 0 writes %a and stage 2 reads it (also for the other group): the existing barrier
// after stage 0 becomes local, and so does the new one before stage 3 (the read precedes the
// next iteration's write).
func.func @existing(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %x = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      scf.for
  // CHECK-NEXT:   tile.copy %r, %a
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %r, %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.copy %a, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %x
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NOT:  sync.barrier
  scf.for %i = %c0 to %n step %c1 {
    sync.barrier
    tile.copy %r, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    sync.barrier
    tile.stage_border "ds_write"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    sync.sched_barrier
    tile.copy %a, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "ds_read"
    tile.exp %s, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "use"
  }
  func.return
}
