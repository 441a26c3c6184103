// cond_barrier's group is high or low.
// RUN: not %tilesched opt %s -p verify --target amd-gfx950 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: cond_barrier_group.mlir:[[# @LINE + 1]]:3: error: 'sync.cond_barrier' group must be "high" or "low", got "mid"
  "sync.cond_barrier"() {group = "mid"} : () -> ()
  func.return
}
