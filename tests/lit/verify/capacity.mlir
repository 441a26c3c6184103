// Allocations beyond a space's capacity.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  // CHECK: capacity.mlir:[[# @LINE + 1]]:3: error: allocations in space "L0A" of function @k need 131072 bytes, but target 'ascend-a2' has 65536 bytes
  %a = memref.alloc() : memref<256x256xf16, "L0A">
  func.return
}
