// A flag needs two different units.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: same_unit_flag.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' needs two different units, got V -> V
  sync.set_flag "V" -> "V", 0
  func.return
}
