// Tile operands need static shapes.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<?x16xf32, "UB">) {
  // CHECK: dynamic_shape.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' operands need a static shape, got memref<?x16xf32, "UB">
  tile.exp %a, %a : memref<?x16xf32, "UB">, memref<?x16xf32, "UB">
  func.return
}
