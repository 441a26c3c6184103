// An event-id operand whose values the verifier cannot bound (a function argument, or the
// induction variable itself of a long loop) is a located error.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10000 = arith.constant 10000 : index
  // CHECK: event_operand_unbounded.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' event id %n: the values it can take cannot be bounded
  sync.set_flag "MTE2" -> "V", %n
  scf.for %i = %c0 to %c10000 step %c1 {
    // CHECK: event_operand_unbounded.mlir:[[# @LINE + 1]]:5: error: 'sync.wait_flag' event id %i: the values it can take cannot be bounded
    sync.wait_flag "MTE2" -> "V", %i
    // (i + n) mod 2 is bounded whatever n is
    %sum = arith.addi %i, %n : index
    %s = arith.remui %sum, %c2 : index
    // CHECK-NOT: error: 'sync.set_flag' event id %s
    sync.set_flag "MTE2" -> "V", %s
  }
  func.return
}
