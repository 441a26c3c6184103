func.func @copy(%x: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  "memref.copy"(%a, %b) : (memref<16x32xf32, "UB">, memref<16x32xf32, "UB">) -> ()
  func.return
}
