// Loop-carried WAR: the store of iteration i reads %u, which the load of iteration i+1 overwrites.
// The back-edge flag MTE3 -> MTE2 is pre-set before the loop and drained after it, so a zero-trip
// loop stays balanced.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
func.func @loop(%x: memref<128x32xf16, "GM">, %y: memref<128x32xf16, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %u = memref.alloc() : memref<32x32xf16, "UB">
  // CHECK:      sync.set_flag "MTE3" -> "MTE2", [[B:[0-9]+]]
  // CHECK-NEXT: scf.for
  // CHECK:      sync.wait_flag "MTE3" -> "MTE2", [[B]]
  // CHECK-NEXT: tile.load
  // CHECK-NEXT: sync.set_flag "MTE2" -> "MTE3", 0
  // CHECK:      sync.wait_flag "MTE2" -> "MTE3", 0
  // CHECK-NEXT: tile.store
  // CHECK-NEXT: sync.set_flag "MTE3" -> "MTE2", [[B]]
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.wait_flag "MTE3" -> "MTE2", [[B]]
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.muli %i, %c32 : index
    %xv = tile.view %x[%r, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "GM"> -> memref<32x32xf16, "GM">
    %yv = tile.view %y[%r, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "GM"> -> memref<32x32xf16, "GM">
    tile.load %xv, %u : memref<32x32xf16, "GM">, memref<32x32xf16, "UB">
    tile.store %u, %yv : memref<32x32xf16, "UB">, memref<32x32xf16, "GM">
  }
  func.return
}
