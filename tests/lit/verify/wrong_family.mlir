// A sync op of another hardware family.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: wrong_family.mlir:[[# @LINE + 1]]:3: error: 'sync.commit_group' is groups-family synchronization, but target 'ascend-a2' synchronizes with flags
  sync.commit_group 0
  func.return
}
