// Every value an event-id operand can take is checked against the target's limit: 7 + (i mod 2)
// reaches 8 on ascend-a2 (8 ids per pair); the same op is fine with base 6 (and (i mod 2) + 1).
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// RUN: sed -e 's/constant 7 : index/constant 6 : index/' -e 's/subi %k, %c1/addi %k, %c1/' %s | %tilesched opt - -p verify --target ascend-a2 | %filecheck %s --check-prefix=OK
// CHECK-NOT: Traceback
// OK: sync.set_flag "MTE2" -> "V", %{{.*}}
func.func @k() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %base = arith.constant 7 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %k = arith.remui %i, %c2 : index
    %ev = arith.addi %base, %k : index
    // CHECK: event_operand_range.mlir:[[# @LINE + 1]]:5: error: 'sync.set_flag' event id %ev can be 8 (it takes 7..8), but target 'ascend-a2' has 8 event ids per unit pair
    sync.set_flag "MTE2" -> "V", %ev
    // CHECK: event_operand_range.mlir:[[# @LINE + 1]]:5: error: 'sync.wait_flag' event id %ev can be 8
    "sync.wait_flag"(%ev) {src = "MTE2", dst = "V"} : (index) -> ()
    // a negative id: (i mod 2) - 1
    %neg = arith.subi %k, %c1 : index
    // CHECK: event_operand_range.mlir:[[# @LINE + 1]]:5: error: 'sync.set_flag' event id %neg can be -1 (it takes -1..0); event ids are non-negative
    sync.set_flag "MTE2" -> "V", %neg
  }
  func.return
}
