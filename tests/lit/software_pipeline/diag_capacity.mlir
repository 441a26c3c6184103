// Four slots of a 64 KiB UB buffer do not fit ascend-a2's 192 KiB UB: refused, naming the
// space, the bytes and the buffer (bring the stages closer, or use a smaller tile).
// RUN: not %tilesched opt %s -p software-pipeline --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<128x256xf16, "GM">, %b: memref<128x256xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<128x256xf16, "UB">
  // CHECK: diag_capacity.mlir:[[# @LINE + 1]]:3: error: multi-buffering needs 262144 bytes in space "UB" (%ub: 4 slots x 65536 bytes), but target 'ascend-a2' has 196608 bytes
  scf.for %i = %c0 to %c4 step %c1 {
    tile.load %a, %ub {tile.stage = 0, tile.order = 0} : memref<128x256xf16, "GM">, memref<128x256xf16, "UB">
    tile.store %ub, %b {tile.stage = 3, tile.order = 1} : memref<128x256xf16, "UB">, memref<128x256xf16, "GM">
  }
  func.return
}
