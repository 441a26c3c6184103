func.func @fits(%x: memref<128x128xf32, "GM">, %y: memref<128x1xf32, "GM">) {
  %a = memref.alloc() : memref<128x128xf32, "UB">
  %r = memref.alloc() : memref<128x1xf32, "UB">
  tile.load %x, %a : memref<128x128xf32, "GM">, memref<128x128xf32, "UB">
  tile.rowsum %a, %r : memref<128x128xf32, "UB">, memref<128x1xf32, "UB">
  tile.store %r, %y : memref<128x1xf32, "UB">, memref<128x1xf32, "GM">
  func.return
}
