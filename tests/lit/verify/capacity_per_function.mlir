// Issue 28 §5 (audit: "two 128 KiB kernels, or 33 small ones, are refused although each fits"):
// capacity is checked per function, each function being a kernel of its own.
// RUN: sed -e 's/16385xf32/16384xf32/' %s | %tilesched opt - -p verify --target ascend-a2 | %filecheck %s --check-prefix=FITS
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// FITS: func.func @first
// FITS: func.func @second
// CHECK-NOT: Traceback
// CHECK-NOT: @first
// CHECK: capacity_per_function.mlir:[[# @LINE + 6]]:3: error: allocations in space "UB" of function @second need 196612 bytes, but target 'ascend-a2' has 196608 bytes
func.func @first() {
  %a = memref.alloc() : memref<32768xf32, "UB">
  func.return
}
func.func @second() {
  %a = memref.alloc() : memref<32768xf32, "UB">
  %b = memref.alloc() : memref<16385xf32, "UB">
  func.return
}
