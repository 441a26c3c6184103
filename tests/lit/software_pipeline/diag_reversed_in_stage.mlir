// A dependent pair whose orders are reversed inside one stage.
// RUN: not %tilesched opt %s -p software-pipeline --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<64x64xf16, "GM">, %b: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<64x64xf16, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    tile.load %a, %ub {tile.stage = 0, tile.order = 1} : memref<64x64xf16, "GM">, memref<64x64xf16, "UB">
    // CHECK: diag_reversed_in_stage.mlir:[[# @LINE + 1]]:5: error: 'tile.store' (stage 0, order 0) reads %ub after 'tile.load' (stage 0, order 1) in the same iteration, but both are in stage 0 and its order puts it first: the dependent pair is reversed within the stage
    tile.store %ub, %b {tile.stage = 0, tile.order = 0} : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
  }
  func.return
}
