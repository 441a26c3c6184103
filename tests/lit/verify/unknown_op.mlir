// An unregistered op is located.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf16, "GM">) {
  // CHECK: unknown_op.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Operation tile.frobnicate is not registered
  "tile.frobnicate"(%a) : (memref<16x16xf16, "GM">) -> ()
  func.return
}
