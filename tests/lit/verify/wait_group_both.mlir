// wait_group takes a pending property or an operand, not both.
// RUN: not %tilesched opt %s -p verify --target cuda-sm80 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%n: index) {
  // CHECK: wait_group_both.mlir:[[# @LINE + 1]]:3: error: 'sync.wait_group' needs exactly one of a 'pending' property or an index operand
  "sync.wait_group"(%n) {queue = 0 : i64, pending = 1 : i64} : (index) -> ()
  func.return
}
