// Async global->LDS copies in a warp-pipelined loop (issue 27 item 2; the shape of Triton's
// AMD stream-pipelined loops with use_async_copy: async_copy_global_to_local + commit_group in
// one stage, async_wait at the next boundary, local_load and dot after it). The copy is marked
// for the async queue (`pipe = "ASYNC0"`); commit_group stays in its stage, the wait stays at
// its boundary with the cluster barrier after it, local because the other group reads the slot
// the copy filled. Without the wait the simulator finds the race (NOWAIT).
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 -o %t
// RUN: %tilesched sim %t --target amd-gfx950 --arg n=6 | %filecheck %s --check-prefix=SIM
// RUN: env TILESCHED_PURE_PYTHON=1 %tilesched sim %t --target amd-gfx950 --arg n=6 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 -o %t.1250
// RUN: %tilesched sim %t.1250 --target amd-gfx1250 --arg n=6 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target amd-gfx950 --arg n=6
// RUN: grep -v "sync.wait_group" %t > %t.nowait
// RUN: not %tilesched sim %t.nowait --target amd-gfx950 --arg n=6 | %filecheck %s --check-prefix=NOWAIT
// SIM: verdict    ok
// NOWAIT: verdict    FAULTY
// NOWAIT: race on lds
func.func @async_loop(%n: index, %g: memref<64x64xf16, "global">, %b: memref<64x64xf16, "local">,
                      %acc: memref<64x64xf32, "local">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lds = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s0 = "tile.slot"(%lds, %c0) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
  tile.load %g, %s0 {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  sync.commit_group 0
  sync.wait_group 0 {pending = 0 : i64}
  // CHECK:      sync.barrier local
  // CHECK-NEXT: sync.cond_barrier "high"
  // CHECK-NEXT: scf.for
  // CHECK:        tile.copy %sc, %r
  // CHECK-NEXT:   tile.load %g, %sn {pipe = "ASYNC0"}
  // CHECK-NEXT:   sync.commit_group 0
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.matmul
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
    %nx = arith.remui %j, %c2 : index
    %cur = arith.remui %i, %c2 : index
    %sn = "tile.slot"(%lds, %nx) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
    %sc = "tile.slot"(%lds, %cur) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
    tile.copy %sc, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.load %g, %sn {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    sync.commit_group 0
    tile.stage_border "load"
    sync.wait_group 0 {pending = 0 : i64}
    tile.matmul %r, %b, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "mma"
  }
  func.return
}
