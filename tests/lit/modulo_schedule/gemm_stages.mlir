// modulo-schedule on the Ascend GEMM loop: II is MTE2's work per iteration (two 16 KiB loads,
// ResMII = 2 x ceil(16384 / 78.35 B/cycle) = 420 on the vendor-cited model), the copies and the matmul go to later stages, and the one-unit conditional
// (first K block without accumulate) is scheduled as a node on M.
// RUN: %tilesched opt %examples/ascend_gemm.mlir -p modulo-schedule --target ascend-a2 | %filecheck %s
// CHECK:      scf.for
// CHECK:      tile.load {{.*}} {tile.stage = 0 : i64, tile.order = {{[0-9]+}} : i64}
// CHECK:      tile.load {{.*}} {tile.stage = 0 : i64, tile.order = {{[0-9]+}} : i64}
// CHECK:      tile.copy {{.*}} {tile.stage = {{[01]}} : i64, tile.order = {{[0-9]+}} : i64}
// CHECK:      tile.copy {{.*}} {tile.stage = {{[01]}} : i64, tile.order = {{[0-9]+}} : i64}
// CHECK:      scf.if
// CHECK:      }{tile.stage = 1 : i64, tile.order = {{[0-9]+}} : i64}
// CHECK-NEXT: } {tile.ii = 420 : i64}
