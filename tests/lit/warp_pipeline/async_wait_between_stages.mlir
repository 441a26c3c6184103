// Anchor: Triton test/TritonGPU/amd/amd-convert-warp-pipeline.mlir, @async_wait_between_stages
// ("amdg.async_wait recognized as a valid barrier between stages"), op for op: two stages that
// store to one pointer, `amdg.async_wait {num_inst = 0}` between them. tilesched writes the wait
// as `sync.wait_group 0 {pending = 0}` (AMD async queue 0, DESIGN.md §3): it is kept at its
// boundary, fenced, and that boundary's cluster barrier follows it (Triton's Membar puts a
// barrier after every async_wait), so no second barrier is added there.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 -o %t
// RUN: %tilesched sim %t --target amd-gfx950 --arg n=4 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target amd-gfx950 --arg n=4
// SIM: verdict    ok
func.func @async_wait_between_stages(%n: index, %p: memref<64x64xf32, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v0 = memref.alloc() : memref<64x64xf32, "local">
  %v1 = memref.alloc() : memref<64x64xf32, "local">
  // CHECK:      sync.barrier local
  // CHECK-NEXT: sync.cond_barrier "high"
  // CHECK-NEXT: scf.for
  // CHECK-NEXT:   tile.store %v0, %p
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.store %v1, %p
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    tile.store %v0, %p : memref<64x64xf32, "local">, memref<64x64xf32, "global">
    tile.stage_border "stage1"
    sync.wait_group 0 {pending = 0 : i64}
    tile.store %v1, %p : memref<64x64xf32, "local">, memref<64x64xf32, "global">
    tile.stage_border "stage2"
  }
  func.return
}
