// A view needs one offset per dimension.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%g: memref<64x64xf16, "GM">) {
  %c0 = arith.constant 0 : index
  // CHECK: view_offsets.mlir:[[# @LINE + 1]]:3: error: 'tile.view' needs one offset and one size per dimension of the 2-d source, got 1 offsets and 2 sizes
  %v = tile.view %g[%c0] {sizes = array<i64: 16, 16>} : memref<64x64xf16, "GM"> -> memref<16x16xf16, "GM">
  func.return
}
