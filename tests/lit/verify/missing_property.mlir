// A required property is missing.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: missing_property.mlir:[[# @LINE + 1]]:3: error: {{.*}}dst{{.*}}
  "sync.set_flag"() {src = "MTE2", event = 0 : i64} : () -> ()
  func.return
}
