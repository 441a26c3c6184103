// A group queue the target does not have.
// RUN: not %tilesched opt %s -p verify --target cuda-sm80 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: wait_group_queue.mlir:[[# @LINE + 1]]:3: error: 'sync.wait_group' queue 3 does not exist on target 'cuda-sm80'; async queues: [0]
  "sync.wait_group"() {queue = 3 : i64, pending = 0 : i64} : () -> ()
  func.return
}
