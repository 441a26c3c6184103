// A scalar op's scalar is not a memref.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  // CHECK: scalar_operand.mlir:[[# @LINE + 1]]:3: error: 'tile.adds' second operand must be a scalar, not a memref
  tile.adds %a, %a, %a : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
