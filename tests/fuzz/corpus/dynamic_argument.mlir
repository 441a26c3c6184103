func.func @f(%a: memref<?x16xf32, "GM">, %u: memref<16x16xf32, "UB">) {
  func.return
}
