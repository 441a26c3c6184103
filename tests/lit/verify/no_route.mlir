// A tile op no unit of the target can run.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%g: memref<16x16xf16, "GM">) {
  %c = memref.alloc() : memref<16x16xf16, "L0C">
  // CHECK: no_route.mlir:[[# @LINE + 1]]:3: error: no unit of target 'ascend-a2' runs 'tile.load' reading "GM" and writing "L0C"
  tile.load %g, %c : memref<16x16xf16, "GM">, memref<16x16xf16, "L0C">
  func.return
}
