// On a group target, ops on the asynchronous cp.async queue are marked tile.async for
// software-pipeline's commit/wait groups.
// RUN: %tilesched opt %examples/cuda_gemm.mlir -p modulo-schedule --target cuda-sm80 | %filecheck %s
// CHECK:      scf.for
// CHECK:      tile.load {{.*}}{tile.stage = 0 : i64, tile.order = {{[0-9]+}} : i64, tile.async}
// CHECK:      tile.load {{.*}}{tile.stage = 0 : i64, tile.order = {{[0-9]+}} : i64, tile.async}
// CHECK:      tile.matmul {{.*}}{tile.stage = {{[0-9]+}} : i64, tile.order = {{[0-9]+}} : i64, accumulate}
// CHECK:      } {tile.ii = {{[0-9]+}} : i64}
