// IR emit-cpp has no spelling for is bad input: a dynamic shape, another family's sync. It
// exits 2 naming the op and its location, and writes no output file.
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 -o %t.cpp 2>&1 | %filecheck %s
// RUN: not test -e %t.cpp
// RUN: not %tilesched opt %S/Inputs/cuda_groups.mlir -p emit-cpp --target cuda-sm80 2>&1 | %filecheck %s --check-prefix=CUDA
// CHECK-NOT: Traceback
// CUDA: cuda_groups.mlir:{{[0-9]+}}:{{[0-9]+}}: error: emit-cpp cannot print 'memref.alloc': memory space "shared" is not an Ascend tile buffer
func.func @dynamic(%n: index) {
  // CHECK: cannot_print.mlir:[[# @LINE + 1]]:3: error: emit-cpp cannot print 'memref.alloc': the dynamic shape memref<?x32xf32, "UB"> has no spelling in PTO-ISA C++
  %d = memref.alloc(%n) : memref<?x32xf32, "UB">
  func.return
}
