func.func private @ext(memref<16x16xf32, "UB">) -> ()
func.func @k(%g: memref<16x16xf32, "GM">) {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  func.call @ext(%a) : (memref<16x16xf32, "UB">) -> ()
  func.return
}
