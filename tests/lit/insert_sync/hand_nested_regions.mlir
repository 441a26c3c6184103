// The hand-placed per-slot flag plan an expert writes for flags_nested_regions.mlir (an inner
// loop on MTE2 / V over two slots of %ub inside an outer loop that stores the accumulator on
// MTE3): ping/pong flags per slot (each refill waits for that slot's last reader), pre-set once
// before the outer loop and drained after it (pre-setting them per row is faulty: the next
// row's pre-set on V is not ordered after MTE2's drain wait), the store waits for the last add,
// the next row's first add waits for the store. insert-sync (with and without reorder-events)
// on the sync-free twin must be no slower, here on a zero-trip inner loop, one short and two
// longer nests.
// RUN: %tilesched equiv %S/flags_nested_regions.mlir %s --target ascend-a2 --arg n=2 --arg m=3
// RUN: %tilesched opt %S/flags_nested_regions.mlir -p insert-sync --target ascend-a2 > %t.new.mlir
// RUN: %tilesched opt %S/flags_nested_regions.mlir -p reorder-events,insert-sync --target ascend-a2 > %t.reo.mlir
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=2 --arg m=0 --json > %t.hand20.json
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=1 --arg m=1 --json > %t.hand11.json
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=4 --arg m=6 --json > %t.hand46.json
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=3 --arg m=16 --json > %t.hand316.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=2 --arg m=0 --json > %t.new20.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=1 --arg m=1 --json > %t.new11.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=4 --arg m=6 --json > %t.new46.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=3 --arg m=16 --json > %t.new316.json
// RUN: %tilesched sim %t.reo.mlir --target ascend-a2 --full --arg n=4 --arg m=6 --json > %t.reo46.json
// RUN: python %S/Inputs/cycles_at_most.py %t.new20.json %t.hand20.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.new11.json %t.hand11.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.new46.json %t.hand46.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.new316.json %t.hand316.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.reo46.json %t.hand46.json | %filecheck %s
// CHECK: ok: new yes, hand yes
// CHECK: new <= hand: yes
func.func @rows(%x: memref<2x32x32xf32, "GM">, %y: memref<4x32x32xf32, "GM">, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = memref.alloc() : memref<2x32x32xf32, "UB">
  %w = memref.alloc() : memref<32x32xf32, "UB">
  sync.set_flag "V" -> "MTE2", 0
  sync.set_flag "V" -> "MTE2", 1
  sync.set_flag "MTE3" -> "V", 0
  scf.for %r = %c0 to %n step %c1 {
    sync.wait_flag "MTE3" -> "V", 0
    scf.for %k = %c0 to %m step %c1 {
      %x0 = tile.slot %x[%c0] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
      %x1 = tile.slot %x[%c1] : memref<2x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
      %u0 = tile.slot %ub[%c0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
      %u1 = tile.slot %ub[%c1] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
      sync.wait_flag "V" -> "MTE2", 0
      tile.load %x0, %u0 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
      sync.set_flag "MTE2" -> "V", 0
      sync.wait_flag "MTE2" -> "V", 0
      tile.add %w, %u0, %w : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
      sync.set_flag "V" -> "MTE2", 0
      sync.wait_flag "V" -> "MTE2", 1
      tile.load %x1, %u1 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
      sync.set_flag "MTE2" -> "V", 1
      sync.wait_flag "MTE2" -> "V", 1
      tile.add %w, %u1, %w : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
      sync.set_flag "V" -> "MTE2", 1
    }
    sync.set_flag "V" -> "MTE3", 0
    %yr = tile.slot %y[%r] : memref<4x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    sync.wait_flag "V" -> "MTE3", 0
    tile.store %w, %yr : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
    sync.set_flag "MTE3" -> "V", 0
  }
  sync.wait_flag "V" -> "MTE2", 0
  sync.wait_flag "V" -> "MTE2", 1
  sync.wait_flag "MTE3" -> "V", 0
  func.return
}
