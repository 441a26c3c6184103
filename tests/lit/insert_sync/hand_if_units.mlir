// The hand-placed flag plan an expert writes for flags_if_units.mlir (an if/else with different
// units in a loop: the then branch loads %u on MTE2, the else branch scales it on V, MTE3 stores
// it after the if), one flag per buffer and pair: the next iteration's writers of %u wait for
// the store (back-edge flags, pre-set before the loop, drained after it), the store waits for
// both possible writers. The cheaper-looking plan with the forward set/wait inside each branch
// is faulty: in an iteration that takes the then branch nothing orders V's back-edge wait before
// MTE3's next set of that flag (the simulator reports unordered-flag-reuse), so the forward sets
// stay after the if, on both units. insert-sync on the sync-free twin must be no slower.
// RUN: %tilesched equiv %S/flags_if_units.mlir %s --target ascend-a2 --arg n=4
// RUN: %tilesched opt %S/flags_if_units.mlir -p insert-sync --target ascend-a2 > %t.new.mlir
// RUN: %tilesched opt %S/flags_if_units.mlir -p reorder-events,insert-sync --target ascend-a2 > %t.reo.mlir
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=1 --json > %t.hand1.json
// RUN: %tilesched sim %s --target ascend-a2 --full --arg n=8 --json > %t.hand8.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=1 --json > %t.new1.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --full --arg n=8 --json > %t.new8.json
// RUN: %tilesched sim %t.reo.mlir --target ascend-a2 --full --arg n=8 --json > %t.reo8.json
// RUN: python %S/Inputs/cycles_at_most.py %t.new1.json %t.hand1.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.new8.json %t.hand8.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.reo8.json %t.hand8.json | %filecheck %s
// CHECK: ok: new yes, hand yes
// CHECK: new <= hand: yes
func.func @branchy(%x: memref<8x32x32xf32, "GM">, %y: memref<8x32x32xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 0.5 : f32
  %u = memref.alloc() : memref<32x32xf32, "UB">
  sync.set_flag "MTE3" -> "MTE2", 0
  sync.set_flag "MTE3" -> "V", 0
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    %xi = tile.slot %x[%i] : memref<8x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    %yi = tile.slot %y[%i] : memref<8x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    sync.wait_flag "MTE3" -> "MTE2", 0
    sync.wait_flag "MTE3" -> "V", 0
    scf.if %even {
      tile.load %xi, %u : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    } else {
      tile.muls %u, %half, %u : memref<32x32xf32, "UB">, f32, memref<32x32xf32, "UB">
    }
    sync.set_flag "MTE2" -> "MTE3", 0
    sync.set_flag "V" -> "MTE3", 0
    sync.wait_flag "MTE2" -> "MTE3", 0
    sync.wait_flag "V" -> "MTE3", 0
    tile.store %u, %yi : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
    sync.set_flag "MTE3" -> "MTE2", 0
    sync.set_flag "MTE3" -> "V", 0
  }
  sync.wait_flag "MTE3" -> "MTE2", 0
  sync.wait_flag "MTE3" -> "V", 0
  func.return
}
