// Flags across nested regions: an inner loop on MTE2 and V (two slots of %ub, per-slot
// back-edge flags) inside an outer loop that stores the accumulator on MTE3 after it. No
// barrier_all: the inner loop's back-edge flags are pre-set before the OUTER loop and drained
// after it (threaded through it: the refill of a slot in the next row waits for its last
// reader in the previous row), the store waits for V with a flag set after the inner loop,
// and the next row's first add waits for the store (an MTE3 -> V back edge of the outer loop).
// Zero-trip and short loops stay balanced (simulated with n, m = 0..3).
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 > %t.mlir
// RUN: %filecheck %s < %t.mlir
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=2 --arg m=3
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=0 --arg m=2 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=2 --arg m=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=1 --arg m=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=3 --arg m=3 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok: no races, no deadlock, no sync violations
// CHECK-NOT:  sync.barrier_all
// CHECK:      sync.set_flag "V" -> "MTE2", [[A:[0-9]+]]
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[B:[0-9]+]]
// CHECK:      scf.for %r
// CHECK:      sync.wait_flag "MTE3" -> "V", [[S:[0-9]+]]
// CHECK-NEXT: scf.for %k
// CHECK:      sync.wait_flag "V" -> "MTE2", [[A]]
// CHECK-NEXT: tile.load %x0, %u0
// CHECK:      tile.add %w, %u0, %w
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[A]]
// CHECK:      sync.wait_flag "V" -> "MTE2", [[B]]
// CHECK-NEXT: tile.load %x1, %u1
// CHECK:      tile.add %w, %u1, %w
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[B]]
// CHECK-NEXT: }
// CHECK-NEXT: sync.set_flag "V" -> "MTE3", [[V:[0-9]+]]
// CHECK:      sync.wait_flag "V" -> "MTE3", [[V]]
// CHECK-NEXT: tile.store %w, %yr
// CHECK-NEXT: sync.set_flag "MTE3" -> "V", [[S]]
// CHECK-NEXT: }
// CHECK-DAG:  sync.wait_flag "V" -> "MTE2", [[A]]
// CHECK-DAG:  sync.wait_flag "V" -> "MTE2", [[B]]
// CHECK-NOT:  sync.barrier_all
func.func @rows(%x: memref<2x32x32xf32, "GM">, %y: memref<4x32x32xf32, "GM">, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = memref.alloc() : memref<2x32x32xf32, "UB">
  %w = memref.alloc() : memref<32x32xf32, "UB">
  scf.for %r = %c0 to %n step %c1 {
    scf.for %k = %c0 to %m step %c1 {
      %x0 = tile.slot %x[%c0] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
      %x1 = tile.slot %x[%c1] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
      %u0 = tile.slot %ub[%c0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
      %u1 = tile.slot %ub[%c1] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
      tile.load %x0, %u0 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
      tile.add %w, %u0, %w : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
      tile.load %x1, %u1 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
      tile.add %w, %u1, %w : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
    }
    %yr = tile.slot %y[%r] : memref<4x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    tile.store %w, %yr : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  }
  func.return
}
