// Use of an undefined SSA value.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: undefined_value.mlir:[[# @LINE + 1]]:12: error: values used but not defined: [%nope]
  tile.exp %nope, %nope : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
