// An operand used at a type other than its own.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf32, "UB">) {
  // CHECK: type_mismatch.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}
  tile.exp %a, %a : memref<8x8xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
