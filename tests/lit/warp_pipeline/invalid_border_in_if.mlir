// A border in an scf.if inside a stage of a pipelined loop (a misplaced border): located error.
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx1250 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
      // CHECK: invalid_border_in_if.mlir:[[# @LINE + 1]]:7: error: tile.stage_border inside a nested region of warp-pipeline stage 'a': warp pipelines cannot be nested
      tile.stage_border "inside_if"
    }
    tile.stage_border "a"
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b"
  }
  func.return
}
