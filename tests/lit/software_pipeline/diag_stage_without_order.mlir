// A tile.stage without a tile.order is rejected at the op.
// RUN: not %tilesched opt %s -p software-pipeline --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<64x64xf16, "GM">, %b: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<64x64xf16, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    // CHECK: diag_stage_without_order.mlir:[[# @LINE + 1]]:5: error: 'tile.load' has tile.stage = 0 but no tile.order
    tile.load %a, %ub {tile.stage = 0} : memref<64x64xf16, "GM">, memref<64x64xf16, "UB">
    tile.store %ub, %b {tile.stage = 1, tile.order = 1} : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
  }
  func.return
}
