// A slot's result is the source without its leading dimension.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() : memref<2x16x16xf16, "L1">
  // CHECK: slot_shape.mlir:[[# @LINE + 1]]:3: error: 'tile.slot' result shape [16, 8] does not match [16, 16]
  %s = tile.slot %b[%c0] : memref<2x16x16xf16, "L1"> -> memref<16x8xf16, "L1">
  func.return
}
