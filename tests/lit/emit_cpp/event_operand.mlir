// A flag whose event id is an index operand (per-slot flags of a rolled double-buffered loop)
// prints as a computed event_t; a constant id as EVENT_IDn. tests/emit/test_run_cpp.py also
// compiles and runs this kernel.
// RUN: %tilesched opt %s -p emit-cpp --target ascend-a2 | %filecheck %s
// CHECK:      const int64_t ev = s + c4;
// CHECK:      wait_flag(PIPE_MTE3, PIPE_MTE2, static_cast<event_t>(ev));
// CHECK-NEXT: pto::TLOAD(t, xs);
// CHECK-NEXT: set_flag(PIPE_MTE2, PIPE_V, static_cast<event_t>(ev));
// CHECK-NEXT: wait_flag(PIPE_MTE2, PIPE_V, static_cast<event_t>(ev));
// CHECK-NEXT: pto::TEXP(t, t);
// CHECK-NEXT: set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT: wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT: pto::TSTORE(ys, t);
// CHECK-NEXT: set_flag(PIPE_MTE3, PIPE_MTE2, static_cast<event_t>(ev));
func.func @pingpong(%x: memref<4x16x32xf32, "GM">, %y: memref<4x16x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %buf = memref.alloc() : memref<2x16x32xf32, "UB">
  sync.set_flag "MTE3" -> "MTE2", 4
  sync.set_flag "MTE3" -> "MTE2", 5
  scf.for %i = %c0 to %c4 step %c1 {
    %s = arith.remui %i, %c2 : index
    %ev = arith.addi %s, %c4 : index
    %t = tile.slot %buf[%s] : memref<2x16x32xf32, "UB"> -> memref<16x32xf32, "UB">
    %xs = tile.slot %x[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    %ys = tile.slot %y[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    sync.wait_flag "MTE3" -> "MTE2", %ev
    tile.load %xs, %t : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
    sync.set_flag "MTE2" -> "V", %ev
    sync.wait_flag "MTE2" -> "V", %ev
    tile.exp %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    sync.set_flag "V" -> "MTE3", 0
    sync.wait_flag "V" -> "MTE3", 0
    tile.store %t, %ys : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
    sync.set_flag "MTE3" -> "MTE2", %ev
  }
  sync.wait_flag "MTE3" -> "MTE2", 4
  sync.wait_flag "MTE3" -> "MTE2", 5
  func.return
}
