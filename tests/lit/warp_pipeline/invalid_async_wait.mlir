// Async-copy sync in a warp pipeline, bad input (exit 2, located): a wait_group after the
// boundary's barrier (the copies it completes would reach the other group only at a later
// barrier); a wait_group inside a stage; and a wait_group on a barrier target without an async
// queue is refused by verify (here: queue 1, which amd-gfx950 does not have).
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: not %tilesched opt %S/Inputs/wait_in_stage.mlir -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=INSIDE
// RUN: not %tilesched opt %S/Inputs/wait_unknown_queue.mlir -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=QUEUE
// CHECK-NOT: Traceback
// CHECK: invalid_async_wait.mlir:[[# @LINE + 8]]:3: error: 'sync.wait_group' after the sync.barrier of its warp-pipeline stage boundary
// INSIDE: wait_in_stage.mlir:7:5: error: 'sync.wait_group' inside warp-pipeline stage 'a': waits and barriers may only sit between stages
// QUEUE: wait_unknown_queue.mlir:3:3: error: 'sync.wait_group' queue 1 does not exist on target 'amd-gfx950'; async queues: [0]
func.func @k() {
  %x = memref.alloc() : memref<64x64xf16, "local">
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "a"
  sync.barrier
  sync.wait_group 0 {pending = 0 : i64}
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "b"
  func.return
}
