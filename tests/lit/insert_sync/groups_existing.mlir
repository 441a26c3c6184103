// Existing commit/wait groups are counted, not duplicated: a loop that already has them (as
// software-pipeline emits) is trusted, and two copies on one in-order queue need no wait.
// RUN: %tilesched opt %s -p insert-sync --target cuda-sm80 | %filecheck %s
func.func @k(%g: memref<4x64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<64x64xf16, "shared">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s0 = tile.slot %g[%c0] : memref<4x64x64xf16, "global"> -> memref<64x64xf16, "global">
  // CHECK:      tile.load
  // CHECK-NEXT: tile.load
  // CHECK-NEXT: sync.commit_group 0
  // CHECK-NEXT: scf.for
  tile.load %s0, %a : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
  tile.load %s0, %a : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
  sync.commit_group 0
  scf.for %i = %c0 to %c4 step %c1 {
    // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
    // CHECK-NEXT: tile.copy
    // CHECK-NEXT: tile.slot
    // CHECK-NEXT: tile.load
    // CHECK-NEXT: sync.commit_group 0
    // CHECK-NEXT: }
    sync.wait_group 0 {pending = 0 : i64}
    tile.copy %a, %r : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
    %s = tile.slot %g[%i] : memref<4x64x64xf16, "global"> -> memref<64x64xf16, "global">
    tile.load %s, %a : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
    sync.commit_group 0
  }
  // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT: tile.copy
  tile.copy %a, %r : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
  func.return
}
