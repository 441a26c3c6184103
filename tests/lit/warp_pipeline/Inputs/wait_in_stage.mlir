func.func @k(%n: index, %g: memref<64x64xf16, "global">) {
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %n to %n step %n {
    tile.load %g, %a {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    sync.commit_group 0
    sync.wait_group 0 {pending = 0 : i64}
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "a"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b"
  }
  func.return
}
