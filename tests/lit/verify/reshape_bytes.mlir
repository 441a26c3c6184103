// reshape keeps the byte size.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k() {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  %b = memref.alloc() : memref<128xf32, "UB">
  // CHECK: reshape_bytes.mlir:[[# @LINE + 1]]:3: error: 'tile.reshape' must keep the byte size: source has 1024 bytes, destination 512
  tile.reshape %a, %b : memref<16x16xf32, "UB">, memref<128xf32, "UB">
  func.return
}
