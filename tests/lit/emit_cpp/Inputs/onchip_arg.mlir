func.func @arg(%t: memref<16x32xf32, "UB">, %x: memref<16x32xf32, "GM">) {
  tile.store %t, %x : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
