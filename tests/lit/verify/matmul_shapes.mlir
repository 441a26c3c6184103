// matmul needs a MxK, b KxN, c MxN.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x32xf16, "L0A">
  %b = memref.alloc() : memref<16x16xf16, "L0B">
  %c = memref.alloc() : memref<16x16xf32, "L0C">
  // CHECK: matmul_shapes.mlir:[[# @LINE + 1]]:3: error: 'tile.matmul' shapes do not match: a 16x32, b 16x16, c 16x16 (need a MxK, b KxN, c MxN)
  tile.matmul %a, %b, %c : memref<16x32xf16, "L0A">, memref<16x16xf16, "L0B">, memref<16x16xf32, "L0C">
  func.return
}
