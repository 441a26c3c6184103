func.func @k(%g: memref<16x16xf32, "GM">) {
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  func.call @down(%a, %c2) : (memref<16x16xf32, "UB">, index) -> ()
  tile.store %a, %g : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  func.return
}
func.func @down(%t: memref<16x16xf32, "UB">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %more = arith.cmpi sgt, %n, %c0 : index
  scf.if %more {
    tile.exp %t, %t : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    %m = arith.subi %n, %c1 : index
    func.call @down(%t, %m) : (memref<16x16xf32, "UB">, index) -> ()
  }
  func.return
}
