// IR emit-cpp has no spelling for is bad input: a dynamic shape (PTO-ISA tiles and global tensors
// here have static shapes), another family's memory. It exits 2 naming the op and its location,
// and writes no output file.
// RUN: rm -f %t.cpp
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 -o %t.cpp 2>&1 | %filecheck %s
// RUN: not test -e %t.cpp
// RUN: not %tilesched opt %S/Inputs/dynamic_arg.mlir -p emit-cpp --target ascend-a2 2>&1 | %filecheck %s --check-prefix=ARG
// RUN: not %tilesched opt %S/Inputs/cuda_groups.mlir -p emit-cpp --target cuda-sm80 2>&1 | %filecheck %s --check-prefix=CUDA
// CHECK-NOT: Traceback
// ARG: dynamic_arg.mlir:1:1: error: emit-cpp cannot print 'func.func': the dynamic shape memref<?x32xf16, "GM"> has no spelling in PTO-ISA C++ (tiles have static shapes)
// CUDA: cuda_groups.mlir:{{[0-9]+}}:{{[0-9]+}}: error: emit-cpp cannot print 'memref.alloc': memory space "shared": it is not an Ascend tile buffer (UB, L1, L0A, L0B, L0C)
func.func @dynamic(%n: index) {
  // CHECK: cannot_print.mlir:[[# @LINE + 1]]:3: error: emit-cpp cannot print 'memref.alloc': the dynamic shape memref<?x32xf32, "UB"> has no spelling in PTO-ISA C++ (tiles have static shapes)
  %d = memref.alloc(%n) : memref<?x32xf32, "UB">
  func.return
}
