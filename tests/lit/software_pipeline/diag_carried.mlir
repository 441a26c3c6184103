// Stage 1 of iteration i still reads %ub when stage 0 of iteration i+1 overwrites it, and
// %ub cannot get a second slot because it is read after the loop.
// RUN: not %tilesched opt %s -p software-pipeline --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<64x64xf16, "GM">, %b: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<64x64xf16, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    // CHECK: diag_carried.mlir:[[# @LINE + 2]]:5: error: loop-carried WAR dependence on %ub (distance 1): 'tile.load' (stage 0, order 0) of iteration i+1 must follow 'tile.store' (stage 1, order 1) of iteration i, but the schedule runs it earlier; %ub cannot be multi-buffered: it is also used outside the loop
    // CHECK-NEXT: note: 'tile.store' (stage 1, order 1) is here
    tile.load %a, %ub {tile.stage = 0, tile.order = 0} : memref<64x64xf16, "GM">, memref<64x64xf16, "UB">
    tile.store %ub, %b {tile.stage = 1, tile.order = 1} : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
  }
  tile.store %ub, %b : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
  func.return
}
