// A syntax error is reported at its line and column.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf16, "GM">) {
  // CHECK: syntax_error.mlir:[[# @LINE + 1]]:24: error: attribute expected
  %c0 = arith.constant : index
  func.return
}
