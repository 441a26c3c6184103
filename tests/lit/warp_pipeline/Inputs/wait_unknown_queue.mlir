func.func @k() {
  %x = memref.alloc() : memref<64x64xf16, "local">
  sync.wait_group 1 {pending = 0 : i64}
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "a"
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "b"
  func.return
}
