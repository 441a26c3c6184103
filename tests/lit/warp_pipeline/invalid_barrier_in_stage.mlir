// A barrier with work on both sides of it inside a stage: waits and barriers may only sit
// between stages. Located error, exit 2.
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx1250 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    // CHECK: invalid_barrier_in_stage.mlir:[[# @LINE + 1]]:5: error: 'sync.barrier' inside warp-pipeline stage 'a': waits and barriers may only sit between stages
    sync.barrier local
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a"
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b"
  }
  func.return
}
