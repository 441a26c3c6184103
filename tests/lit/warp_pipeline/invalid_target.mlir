// Stages on a target without two issuer groups: a located error, exit 2.
// RUN: not %tilesched opt %s -p warp-pipeline --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p warp-pipeline --target cuda-sm80 2>&1 | %filecheck %s --check-prefix=CUDA
// CHECK-NOT: Traceback
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: invalid_target.mlir:[[# @LINE + 2]]:5: error: warp pipelining needs an AMD target with two issuer groups (amd-gfx950, amd-gfx1250); ascend-a2 synchronizes with flags: remove the tile.stage_border markers or pass --target amd-gfx950
    // CUDA: invalid_target.mlir:[[# @LINE + 1]]:5: error: warp pipelining needs an AMD target with two issuer groups (amd-gfx950, amd-gfx1250); cuda-sm80 synchronizes with groups
    tile.stage_border "a"
    tile.stage_border "b"
  }
  func.return
}
