// Elementwise operands have one shape.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x16xf32, "UB">
  // CHECK: elementwise_shapes.mlir:[[# @LINE + 1]]:3: error: 'tile.add' operands must have the same shape, got 16x32, 16x16, 16x16
  tile.add %a, %b, %b : memref<16x32xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
