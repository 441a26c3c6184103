// tile.fills (fill from an SSA scalar) prints as TEXPANDS(dst, scalar) and tile.subs as
// TSUBS(dst, src, scalar), in the library's argument order (pto_instr.hpp); fused, they carry
// last-use flags for their tile arguments only (scalars take none). test_run_cpp.py compiles and
// runs this kernel against PTO-ISA and compares it with the numpy semantics.
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// CHECK:      __global__ AICORE void subs_fills(__gm__ float* x, __gm__ float* y, float alpha) {
// CHECK:      pto::TLOAD(a, x_gm);
// CHECK:      {{\[\[}}pto::last_use(0){{\]\]}} pto::TEXPANDS(b, alpha);
// CHECK-NEXT: {{\[\[}}pto::last_use(0, 1){{\]\]}} pto::TSUBS(c, a, alpha);
// CHECK-NEXT: {{\[\[}}pto::last_use(0, 1, 1){{\]\]}} pto::TADD(c, c, b);
// CHECK:      pto::TSTORE(y_gm, c);
func.func @subs_fills(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %alpha: f32) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.fills %alpha, %b : f32, memref<16x32xf32, "UB">
  tile.subs %a, %alpha, %c : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.add %c, %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %c, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
