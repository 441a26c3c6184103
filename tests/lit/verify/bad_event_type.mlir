// A property of the wrong type.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: bad_event_type.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' property 'event' must be an i64 integer, got "zero"
  "sync.set_flag"() {src = "MTE2", dst = "V", event = "zero"} : () -> ()
  func.return
}
