// A consumer in an earlier stage than its producer (same iteration).
// RUN: not %tilesched opt %s -p software-pipeline --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<64x64xf16, "GM">, %b: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<64x64xf16, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    tile.load %a, %ub {tile.stage = 1, tile.order = 0} : memref<64x64xf16, "GM">, memref<64x64xf16, "UB">
    // CHECK: diag_consumer_earlier_stage.mlir:[[# @LINE + 2]]:5: error: 'tile.store' (stage 0, order 1) reads %ub after 'tile.load' (stage 1, order 0) in the same iteration, but is in an earlier stage: a consumer cannot run in an earlier stage than its producer
    // CHECK-NEXT: diag_consumer_earlier_stage.mlir:[[# @LINE - 2]]:5: note: 'tile.load' (stage 1, order 0) is here
    tile.store %ub, %b {tile.stage = 0, tile.order = 1} : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
  }
  func.return
}
