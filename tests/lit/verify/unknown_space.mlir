// A memory space the target does not have.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf16, "GM">) {
  // CHECK: unknown_space.mlir:[[# @LINE + 1]]:3: error: unknown memory space "L9" of %u for target 'ascend-a2'; valid spaces: "GM", "L1", "L0A", "L0B", "L0C", "UB"
  %u = memref.alloc() : memref<16x16xf16, "L9">
  func.return
}
