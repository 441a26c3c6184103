func.func @groups(%g: memref<16x32xf32, "global">) {
  %s = memref.alloc() : memref<16x32xf32, "shared">
  tile.load %g, %s : memref<16x32xf32, "global">, memref<16x32xf32, "shared">
  sync.commit_group 0
  sync.wait_group 0 {pending = 0 : i64}
  func.return
}
