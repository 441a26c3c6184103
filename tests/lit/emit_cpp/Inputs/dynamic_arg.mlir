func.func @dyn(%x: memref<?x32xf16, "GM">) {
  func.return
}
