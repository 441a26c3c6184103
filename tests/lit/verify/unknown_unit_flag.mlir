// A flag naming a unit the target lacks.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: unknown_unit_flag.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' dst "VEC" is not a queued unit of target 'ascend-a2'
  sync.set_flag "MTE2" -> "VEC", 0
  func.return
}
