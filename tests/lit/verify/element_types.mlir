// Elementwise operands have one element type.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  %b = memref.alloc() : memref<16x16xf16, "UB">
  // CHECK: element_types.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' operands must have the same element type, got f16, f32
  tile.exp %a, %b : memref<16x16xf32, "UB">, memref<16x16xf16, "UB">
  func.return
}
