// Per-slot event ids: an event id may be an index operand (base + (i + c) mod N) instead of an
// integer, in custom and generic syntax; both forms print back as written.
// RUN: %tilesched opt %s -p verify | %filecheck %s
// RUN: %tilesched opt %s -p verify --generic | %filecheck %s --check-prefix=GENERIC
// RUN: %tilesched opt %s -p verify --generic | %tilesched opt - -p verify | %filecheck %s

func.func @pingpong() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %s = arith.remui %i1, %c2 : index
    %ev = arith.addi %s, %c4 : index
    // CHECK: sync.set_flag "MTE2" -> "MTE1", %[[EV:[a-z0-9_]+]]
    // GENERIC: "sync.set_flag"(%[[EV:[a-z0-9_]+]]) <{src = "MTE2", dst = "MTE1"}> : (index) -> ()
    sync.set_flag "MTE2" -> "MTE1", %ev
    // CHECK-NEXT: sync.wait_flag "MTE2" -> "MTE1", %[[EV]] {note = 1 : i64}
    // GENERIC-NEXT: "sync.wait_flag"(%[[EV]]) <{src = "MTE2", dst = "MTE1"}> {note = 1 : i64} : (index) -> ()
    sync.wait_flag "MTE2" -> "MTE1", %ev {note = 1 : i64}
    // CHECK-NEXT: sync.set_flag "MTE1" -> "MTE2", %[[EV]]
    // GENERIC-NEXT: "sync.set_flag"(%[[EV]]) <{src = "MTE1", dst = "MTE2"}> : (index) -> ()
    "sync.set_flag"(%ev) {src = "MTE1", dst = "MTE2"} : (index) -> ()
    // CHECK-NEXT: sync.wait_flag "MTE1" -> "MTE2", %[[EV]]
    "sync.wait_flag"(%ev) <{src = "MTE1", dst = "MTE2"}> : (index) -> ()
    // the constant form is unchanged
    // CHECK-NEXT: sync.set_flag "MTE2" -> "MTE1", 7
    // GENERIC-NEXT: "sync.wait_flag"(%[[EV]])
    // GENERIC-NEXT: "sync.set_flag"() <{src = "MTE2", dst = "MTE1", event = 7 : i64}> : () -> ()
    "sync.set_flag"() {src = "MTE2", dst = "MTE1", event = 7 : i64} : () -> ()
    // CHECK-NEXT: sync.wait_flag "MTE2" -> "MTE1", 7
    sync.wait_flag "MTE2" -> "MTE1", 7
  }
  func.return
}
