// The double-buffered GEMM example in three stages: one local barrier, before the mfma stage
// (it completes the ds_read copies the mfma consumes and orders the prefetch into one slot
// before the next iteration's read of it); plain barriers elsewhere; setprio 1 for the mfma
// stage and back to 0 at the wrap-around, no reset needed after the loop (stage 0 runs at 0).
// RUN: %tilesched opt %examples/amd_gemm.mlir -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %examples/amd_gemm.mlir -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// CHECK:      tile.load
// CHECK:      tile.load
// CHECK-NEXT: sync.barrier local
// CHECK-NEXT: sync.cond_barrier "high"
// CHECK-NEXT: scf.for
// CHECK:        scf.if
// CHECK:          tile.load %b_blk
// CHECK-NEXT:   }
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   sync.barrier{{$}}
// CHECK-NEXT:   sync.sched_barrier
// CHECK:        tile.copy
// CHECK:        tile.copy
// CHECK-NEXT:   sync.setprio 1
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   sync.barrier local
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   tile.matmul
// CHECK-NEXT:   sync.setprio 0
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   sync.barrier{{$}}
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT: }
// CHECK-NEXT: sync.cond_barrier "low"
// CHECK-NOT:  sync.barrier
// CHECK-NOT:  tile.stage_border
