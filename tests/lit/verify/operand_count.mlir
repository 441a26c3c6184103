// A tile op with the wrong number of operands.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf16, "GM">) {
  // CHECK: operand_count.mlir:[[# @LINE + 1]]:3: error: {{.*}}operand{{.*}}
  "tile.load"(%a) : (memref<16x16xf16, "GM">) -> ()
  func.return
}
