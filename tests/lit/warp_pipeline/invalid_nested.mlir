// A border inside a nested region of a stage (here a pipelined loop inside a stage of another):
// warp pipelines cannot be nested. Located error, exit 2, on both AMD targets.
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx1250 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "outer0"
    scf.for %j = %c0 to %n step %c1 {
      tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
      // CHECK: invalid_nested.mlir:[[# @LINE + 1]]:7: error: tile.stage_border inside a nested region of warp-pipeline stage 'outer1': warp pipelines cannot be nested
      tile.stage_border "inner0"
      tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
      tile.stage_border "inner1"
    }
    tile.stage_border "outer1"
  }
  func.return
}
