// A row reduction writes one column.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<16x2xf32, "UB">
  // CHECK: rowsum_columns.mlir:[[# @LINE + 1]]:3: error: 'tile.rowsum' needs a 2-d input MxN and a Mx1 output (one column), got 16x32 -> 16x2
  tile.rowsum %a, %r : memref<16x32xf32, "UB">, memref<16x2xf32, "UB">
  func.return
}
