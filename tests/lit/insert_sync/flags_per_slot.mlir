// Per-slot back-edge flags: a loop body that uses both slots of a double buffer %ub. The
// refill of slot s (MTE2) in iteration i+1 waits for the last reader of slot s (V) in
// iteration i, with one flag per slot: the load of slot 0 does not wait for the reader of
// slot 1 at the end of the body. Each flag is pre-set before the loop and drained after it,
// so zero-trip and short loops are balanced (the RUN lines simulate n = 0, 1, 2, 5).
// insert-sync{legacy=true}, the previous plan, has one back-edge flag for the pair.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p "insert-sync{legacy=true}" --target ascend-a2 | %filecheck %s --check-prefix=OLD
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 > %t.mlir
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=2 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=5 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok: no races, no deadlock, no sync violations
// OLD-COUNT-2: sync.set_flag "V" -> "MTE2"
// OLD-NOT: sync.set_flag "V" -> "MTE2"
// CHECK:      sync.set_flag "V" -> "MTE2", [[A:[0-9]+]]
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[B:[0-9]+]]
// CHECK-NEXT: scf.for
// CHECK:      sync.wait_flag "V" -> "MTE2", [[A]]
// CHECK-NEXT: tile.load %x0, %u0
// CHECK:      tile.exp %u0, %w0
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[A]]
// CHECK:      sync.wait_flag "V" -> "MTE2", [[B]]
// CHECK-NEXT: tile.load %x1, %u1
// CHECK:      tile.exp %u1, %w1
// CHECK-NEXT: sync.set_flag "V" -> "MTE2", [[B]]
// CHECK-NEXT: }
// CHECK-NEXT: sync.wait_flag "V" -> "MTE2", [[A]]
// CHECK-NEXT: sync.wait_flag "V" -> "MTE2", [[B]]
func.func @ping_pong(%x: memref<2x32x32xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = memref.alloc() : memref<2x32x32xf32, "UB">
  %w = memref.alloc() : memref<2x32x32xf32, "UB">
  scf.for %i = %c0 to %n step %c1 {
    %x0 = tile.slot %x[%c0] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    %x1 = tile.slot %x[%c1] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    %u0 = tile.slot %ub[%c0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %u1 = tile.slot %ub[%c1] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %w0 = tile.slot %w[%c0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %w1 = tile.slot %w[%c1] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    tile.load %x0, %u0 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    tile.exp %u0, %w0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
    tile.load %x1, %u1 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    tile.exp %u1, %w1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  }
  func.return
}
