// An scf.if / else with different units inside a loop: the then branch loads a block on MTE2,
// the else branch scales it on V; the store after the if runs on MTE3. The if is synchronized
// with flags that cross its boundary (waits before it for what its units need, sets after it
// for the store), not with barrier_all; its own flags' ids are re-set by its next instance, so
// the loop orders its next entry after its exit (back edges).
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 > %t.mlir
// RUN: %filecheck %s < %t.mlir
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=4
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched opt %s -p "insert-sync{legacy=true}" --target ascend-a2 | %filecheck %s --check-prefix=OLD
// SIM: verdict    ok: no races, no deadlock, no sync violations
// OLD: sync.barrier_all
// CHECK-NOT: sync.barrier_all
// CHECK:     scf.if
// CHECK:     tile.load
// CHECK:     } else {
// CHECK:     tile.muls
// CHECK:     }
// CHECK-DAG: sync.set_flag "MTE2" -> "MTE3"
// CHECK-DAG: sync.set_flag "V" -> "MTE3"
// CHECK-DAG: sync.wait_flag "V" -> "MTE3"
// CHECK-DAG: sync.wait_flag "MTE2" -> "MTE3"
// CHECK:     tile.store
// CHECK-NOT: sync.barrier_all
func.func @branchy(%x: memref<8x32x32xf32, "GM">, %y: memref<8x32x32xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 0.5 : f32
  %u = memref.alloc() : memref<32x32xf32, "UB">
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    %xi = tile.slot %x[%i] : memref<8x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    %yi = tile.slot %y[%i] : memref<8x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    scf.if %even {
      tile.load %xi, %u : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    } else {
      tile.muls %u, %half, %u : memref<32x32xf32, "UB">, f32, memref<32x32xf32, "UB">
    }
    tile.store %u, %yi : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  }
  func.return
}
