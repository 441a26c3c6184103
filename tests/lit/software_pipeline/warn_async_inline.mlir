// tile.async on an op cuda-sm80 runs on the issuer (a shared->local copy) is a warning: the
// copy completes before the next op is issued and gets no commit or wait.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 2>&1 >/dev/null | %filecheck %s
func.func @k(%a: memref<32x32xf16, "global">, %out: memref<32x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %c4 step %c1 {
    tile.load %a, %sh {tile.stage = 0, tile.order = 0, tile.async} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    // CHECK: warn_async_inline.mlir:[[# @LINE + 1]]:5: warning: 'tile.copy' is marked asynchronous (stage 1), but target 'cuda-sm80' runs it on the issuer
    tile.copy %sh, %r {tile.stage = 1, tile.order = 1, tile.async} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    tile.store %r, %out {tile.stage = 2, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  }
  func.return
}
