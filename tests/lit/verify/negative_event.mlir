// Event ids are non-negative.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: negative_event.mlir:[[# @LINE + 1]]:3: error: 'sync.wait_flag' event must be non-negative, got -1
  "sync.wait_flag"() {src = "MTE2", dst = "V", event = -1 : i64} : () -> ()
  func.return
}
