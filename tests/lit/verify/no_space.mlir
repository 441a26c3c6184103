// A memref without a memory space.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%a: memref<16x16xf16, "GM">) {
  // CHECK: no_space.mlir:[[# @LINE + 1]]:3: error: memref memref<16x16xf16> of %u has no memory space
  %u = memref.alloc() : memref<16x16xf16>
  func.return
}
