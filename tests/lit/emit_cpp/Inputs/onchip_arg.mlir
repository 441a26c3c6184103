func.func @arg(%t: memref<16x32xf16, "L1">, %x: memref<16x32xf16, "GM">) {
  tile.load %x, %t : memref<16x32xf16, "GM">, memref<16x32xf16, "L1">
  func.return
}
