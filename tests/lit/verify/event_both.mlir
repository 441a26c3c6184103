// A flag op takes its event id as a property or as an index operand: exactly one of them.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%e: index) {
  // CHECK: event_both.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' needs exactly one of an 'event' property or an index operand
  "sync.set_flag"(%e) {src = "MTE2", dst = "V", event = 1 : i64} : (index) -> ()
  // CHECK: event_both.mlir:[[# @LINE + 1]]:3: error: 'sync.wait_flag' needs exactly one of an 'event' property or an index operand
  "sync.wait_flag"() {src = "MTE2", dst = "V"} : () -> ()
  func.return
}
