// Anchor: Triton test/TritonGPU/amd/amd-convert-warp-pipeline.mlir,
// @flat_pipeline_existing_barrier, op for op: a flat pipeline stage0 -- async_wait -- stage1 --
// stage2, each stage a store to one pointer. Between stages 0 and 1 the existing wait
// (`sync.wait_group 0 {pending = 0}`) is kept, fenced, with the cluster barrier after it (the
// one Triton's Membar adds after an async_wait); between stages 1 and 2 a fenced barrier is
// inserted. (tilesched's flat pipeline ends at the last border, so stage2's border follows it.)
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 -o %t
// RUN: %tilesched sim %t --target amd-gfx950 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target amd-gfx950
// SIM: verdict    ok
func.func @flat_pipeline_existing_barrier(%p: memref<64x64xf32, "global">) {
  %v0 = memref.alloc() : memref<64x64xf32, "local">
  %v1 = memref.alloc() : memref<64x64xf32, "local">
  %v2 = memref.alloc() : memref<64x64xf32, "local">
  // CHECK:      sync.barrier local
  // CHECK-NEXT: sync.cond_barrier "high"
  // CHECK-NEXT: tile.store %v0, %p
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT: sync.barrier{{$}}
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: tile.store %v1, %p
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier{{$}}
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: tile.store %v2, %p
  // CHECK-NEXT: sync.cond_barrier "low"
  tile.store %v0, %p : memref<64x64xf32, "local">, memref<64x64xf32, "global">
  tile.stage_border "stage0"
  sync.wait_group 0 {pending = 0 : i64}
  tile.store %v1, %p : memref<64x64xf32, "local">, memref<64x64xf32, "global">
  tile.stage_border "stage1"
  tile.store %v2, %p : memref<64x64xf32, "local">, memref<64x64xf32, "global">
  tile.stage_border "stage2"
  func.return
}
