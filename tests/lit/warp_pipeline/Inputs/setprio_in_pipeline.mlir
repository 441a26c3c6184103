// Input of invalid_two_barriers.mlir: a user-written setprio between stages.
func.func @k() {
  %x = memref.alloc() : memref<64x64xf16, "local">
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "a"
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "b"
  sync.setprio 1
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "c"
  func.return
}
