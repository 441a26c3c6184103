// Two barriers at one stage boundary (they would shift the groups' phase) and a sync op the pass
// writes itself: located errors, exit 2.
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx1250 2>&1 | %filecheck %s
// RUN: not %tilesched opt %S/Inputs/setprio_in_pipeline.mlir -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=PRIO
// CHECK-NOT: Traceback
// PRIO: setprio_in_pipeline.mlir:8:3: error: 'sync.setprio' cannot be part of a warp pipeline (only sync.barrier, sync.sched_barrier and sync.wait_group may sit between stages, sync.commit_group inside one; warp-pipeline writes the phase shift and priorities itself)
func.func @k() {
  %x = memref.alloc() : memref<64x64xf16, "local">
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "a"
  sync.barrier
  // CHECK: invalid_two_barriers.mlir:[[# @LINE + 1]]:3: error: a second sync.barrier at one warp-pipeline stage boundary: a pipeline needs exactly one barrier per boundary (add an empty stage for a bubble)
  sync.barrier local
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "b"
  func.return
}
