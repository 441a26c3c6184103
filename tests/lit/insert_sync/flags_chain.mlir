// A load -> vector -> store chain gets one set/wait pair per cross-unit dependence; the store's
// dependence on the load is implied through the vector unit and gets nothing.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
func.func @chain(%x: memref<32x32xf16, "GM">, %y: memref<32x32xf16, "GM">) {
  %u = memref.alloc() : memref<32x32xf16, "UB">
  %v = memref.alloc() : memref<32x32xf16, "UB">
  // CHECK:      tile.load
  // CHECK-NEXT: sync.set_flag "MTE2" -> "V", 0
  // CHECK-NEXT: sync.wait_flag "MTE2" -> "V", 0
  // CHECK-NEXT: tile.exp
  // CHECK-NEXT: sync.set_flag "V" -> "MTE3", 0
  // CHECK-NEXT: sync.wait_flag "V" -> "MTE3", 0
  // CHECK-NEXT: tile.store
  // CHECK-NOT:  sync.
  tile.load %x, %u : memref<32x32xf16, "GM">, memref<32x32xf16, "UB">
  tile.exp %u, %v : memref<32x32xf16, "UB">, memref<32x32xf16, "UB">
  tile.store %v, %y : memref<32x32xf16, "UB">, memref<32x32xf16, "GM">
  func.return
}
