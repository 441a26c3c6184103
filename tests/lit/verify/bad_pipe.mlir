// A pipe override naming no unit.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  // CHECK: bad_pipe.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' pipe "CUBE" is not a unit of target 'ascend-a2'
  tile.exp %a, %a {pipe = "CUBE"} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
