// software-pipeline followed by warp-pipeline on the GEMM (Inputs/gemm_software_stages.mlir):
// the kernel loop runs three warp stages on double-buffered LDS with one local barrier, and the
// epilogue (a flat pipeline right after the loop) is joined to it: one phase shift before the
// loop, one reconvergence after the epilogue; the epilogue's barrier stays plain (its matmul
// consumes the registers its own group's LDS copies filled, DESIGN.md §4).
// RUN: %tilesched opt %S/Inputs/gemm_software_stages.mlir -p software-pipeline,warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %S/Inputs/gemm_software_stages.mlir -p software-pipeline,warp-pipeline --target amd-gfx1250 | %filecheck %s
// CHECK:      memref.alloc() : memref<2x128x32xf16, "LDS">
// CHECK:      sync.barrier local
// CHECK-NEXT: sync.cond_barrier "high"
// CHECK-NEXT: scf.for
// CHECK:        tile.load
// CHECK:        sync.barrier{{$}}
// CHECK:        tile.copy
// CHECK:        sync.barrier local
// CHECK:        tile.matmul
// CHECK:        sync.barrier{{$}}
// CHECK:      }
// CHECK:      tile.copy
// CHECK:      sync.barrier{{$}}
// CHECK:      tile.matmul
// CHECK-NEXT: sync.setprio 0
// CHECK-NEXT: sync.cond_barrier "low"
// CHECK-NOT:  sync.cond_barrier
// CHECK-NOT:  tile.stage_border
