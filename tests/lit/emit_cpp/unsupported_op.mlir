// An op PTO-ISA has no intrinsic for is refused with its location (exit 2, nothing written):
// tile.reshape writes a separate buffer, while TRESHAPE only re-labels its source's bytes; a
// row reduction on a non-UB tile; memref.copy; an L1 argument of a kernel (the host passes
// global memory only: a kernel stages UB arguments through it, not L1 / L0 ones; a called
// function takes any on-chip argument, calls.mlir).
// RUN: rm -f %t.cpp
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 -o %t.cpp 2>&1 | %filecheck %s
// RUN: not test -e %t.cpp
// RUN: not %tilesched opt %S/Inputs/memref_copy.mlir -p emit-cpp 2>&1 | %filecheck %s --check-prefix=COPY
// RUN: not %tilesched opt %S/Inputs/onchip_arg.mlir -p emit-cpp 2>&1 | %filecheck %s --check-prefix=ARG
// CHECK-NOT: Traceback
// COPY: memref_copy.mlir:4:3: error: emit-cpp cannot print 'memref.copy': PTO-ISA has no spelling for this op
// ARG: onchip_arg.mlir:1:1: error: emit-cpp cannot print 'func.func': argument %t is in L1: the host passes global memory only, so a kernel stages an on-chip argument through a global buffer (TLOAD in, TSTORE out); emit-cpp stages UB (Vec) tiles only
func.func @reshape(%x: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<32x16xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  // CHECK: unsupported_op.mlir:[[# @LINE + 1]]:3: error: emit-cpp cannot print 'tile.reshape': PTO-ISA's TRESHAPE re-labels the source's bytes
  tile.reshape %a, %b : memref<16x32xf32, "UB">, memref<32x16xf32, "UB">
  func.return
}
