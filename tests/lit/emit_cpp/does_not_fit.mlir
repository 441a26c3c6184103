// A program whose on-chip buffers do not fit the target is refused at the buffer that ends
// highest in the plan, saying how many bytes of which space it needs (exit 2, nothing written).
// The allocations fit ascend-a2's 192 KiB UB (2 x 64 KiB + 512 B), but TROWSUM needs a scratch
// tile as large as its source (64 KiB), live while %a and %b are: 197120 bytes. Without %b it
// fits, and the plan shows where each tile went.
// RUN: rm -f %t.cpp
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 -o %t.cpp 2>&1 | %filecheck %s
// RUN: not test -e %t.cpp
// RUN: %tilesched opt %S/Inputs/fits.mlir -p emit-cpp --target ascend-a2 | %filecheck %s --check-prefix=FITS
// CHECK-NOT: Traceback
// CHECK: does_not_fit.mlir:[[# @LINE + 9]]:3: error: emit-cpp cannot place the on-chip buffers of @big: UB needs 197120 bytes, the target has 196608 (4 buffer(s) in UB; this one ends at byte 197120)
// FITS:      // Address plan of fits (bytes; live = op interval):
// FITS-NEXT: //   UB   [      0,   65536)  %a  live 2..3
// FITS-NEXT: //   UB   [  65536,  131072)  scratch of tile.rowsum at op 3  live 3..3 on V only
// FITS-NEXT: //   UB   [ 131072,  131584)  %r  live 3..4
// FITS-NEXT: //   UB: 131584 of 196608 bytes
func.func @big(%x: memref<128x128xf32, "GM">, %y: memref<128x1xf32, "GM">) {
  %a = memref.alloc() : memref<128x128xf32, "UB">
  %b = memref.alloc() : memref<128x128xf32, "UB">
  %r = memref.alloc() : memref<128x1xf32, "UB">
  tile.load %x, %a : memref<128x128xf32, "GM">, memref<128x128xf32, "UB">
  tile.load %x, %b : memref<128x128xf32, "GM">, memref<128x128xf32, "UB">
  tile.rowsum %a, %r : memref<128x128xf32, "UB">, memref<128x1xf32, "UB">
  tile.add %a, %b, %a : memref<128x128xf32, "UB">, memref<128x128xf32, "UB">, memref<128x128xf32, "UB">
  tile.store %a, %x : memref<128x128xf32, "UB">, memref<128x128xf32, "GM">
  tile.store %r, %y : memref<128x1xf32, "UB">, memref<128x1xf32, "GM">
  func.return
}
