// RUN: not %tilesched opt %s -p verify --target ascend-a2-mix 2>&1 | %filecheck %s
// A UB buffer lives in one vector core: an unannotated op (AIV0) on a buffer AIV1 uses.
func.func @two_vector_cores(%g: memref<16x16xf16, "GM">) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x16xf16, "UB">
  %v = tile.view %ub[%c0, %c0] {sizes = array<i64: 8, 16>} : memref<16x16xf16, "UB"> -> memref<8x16xf16, "UB">
  tile.load %g, %ub {tile.core = "AIV1"} : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
  // CHECK: cross_core_buffer.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' runs on core AIV0, but %ub ("UB") is used on core AIV1 by 'tile.load' at {{.*}}cross_core_buffer.mlir:[[# @LINE - 1]]:3; a buffer lives in one core's memory: annotate the op tile.core = "AIV1"
  tile.exp %v, %v : memref<8x16xf16, "UB">, memref<8x16xf16, "UB">
  func.return
}
