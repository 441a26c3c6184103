// A func.call's callee is an AICORE inline device function, printed before its callers once per
// list of C++ argument types its callers pass (overloads): a global argument is the caller's
// GlobalTensor by reference, an on-chip one the caller's Tile by reference plus its byte address
// (views the callee takes of it are placed from it), scalars by value, results as reference
// parameters. @scale is called with a whole UB buffer and with a window of a wider one (row
// pitch 64), so it and @bump, which it calls, are printed twice. The callees' own buffers sit in
// a frame below the kernel's (scale's %u at 0, the kernel's from 2048). insert-sync puts a
// barrier_all before and after each call (a call is a boundary on flag targets). test_run_cpp.py compiles
// and runs this kernel and compares it with the numpy semantics.
// RUN: %tilesched opt %s -p insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir --arg alpha=1.5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --arg alpha=1.5 | %filecheck %s --check-prefix=EQ
// SIM: verdict    ok
// EQ: : equivalent
// CHECK:      // @bump: a device function (func.call)
// CHECK-NEXT: AICORE inline void bump(pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& u, int64_t u_addr, pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& t, int64_t t_addr) {
// CHECK:        pto::TEXP(u, u);
// CHECK-NEXT:   pto::TADD(t, t, t);
// CHECK:        TASSIGN(h, t_addr + c0 * 128 + c16 * 4);
// CHECK-NEXT:   pto::TRELU(h, h);
// CHECK:      // Address plan of scale (bytes; live = op interval):
// CHECK-NEXT: //   UB   [      0,    2048)  %u
// CHECK:      // @scale: a device function (func.call)
// CHECK-NEXT: AICORE inline void scale(pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& t, int64_t t_addr, float s, pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>>& g, int64_t& result0) {
// CHECK-NEXT:   pto::Tile<{{.*}}> u;
// CHECK-NEXT:   TASSIGN(u, 0);
// CHECK-NEXT:   pto::TLOAD(u, g);
// CHECK:        bump(u, 0, t, t_addr);
// CHECK:        pto::TSTORE(g, u);
// CHECK:        result0 = c7;
// CHECK-NEXT: }
// CHECK:      AICORE inline void bump(pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& u, int64_t u_addr, pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& t, int64_t t_addr) {
// CHECK:        TASSIGN(h, t_addr + c0 * 256 + c16 * 4);
// CHECK:      AICORE inline void scale(pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null>& t, int64_t t_addr, float s, pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>>& g, int64_t& result0) {
// CHECK:      // Address plan of twice (bytes; live = op interval):
// CHECK-NEXT: //   UB   [   2048,    6144)  %w
// CHECK-NEXT: //   UB   [   6144,    8192)  %a
// CHECK:      __global__ AICORE void twice(__gm__ float* x, __gm__ float* y, float alpha) {
// CHECK:        pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> x1(x + c1 * 512);
// CHECK-NEXT:   pto::TLOAD(a, x0);
// CHECK-NEXT:   pipe_barrier(PIPE_ALL);
// CHECK-NEXT:   int64_t n;
// CHECK-NEXT:   scale(a, 6144, alpha, x1, n);
// CHECK-NEXT:   pipe_barrier(PIPE_ALL);
// CHECK:        TASSIGN(wl, 2048 + c0 * 256 + c0 * 4);
// CHECK:        int64_t m;
// CHECK-NEXT:   scale(wl, 2048 + c0 * 256 + c0 * 4, alpha, x1, m);
func.func @twice(%x: memref<2x16x32xf32, "GM">, %y: memref<2x16x32xf32, "GM">, %alpha: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %w = memref.alloc() : memref<16x64xf32, "UB">
  %x0 = tile.slot %x[%c0] : memref<2x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
  %x1 = tile.slot %x[%c1] : memref<2x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
  tile.load %x0, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  %n = func.call @scale(%a, %alpha, %x1) : (memref<16x32xf32, "UB">, f32, memref<16x32xf32, "GM">) -> index
  %wl = tile.view %w[%c0, %c0] {sizes = array<i64: 16, 32>} : memref<16x64xf32, "UB"> -> memref<16x32xf32, "UB">
  tile.load %x0, %wl : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  %m = func.call @scale(%wl, %alpha, %x1) : (memref<16x32xf32, "UB">, f32, memref<16x32xf32, "GM">) -> index
  %y0 = tile.slot %y[%c0] : memref<2x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
  %y1 = tile.slot %y[%c1] : memref<2x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
  tile.store %a, %y0 : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  tile.store %wl, %y1 : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
// g = exp(s * g); t = t + t, then relu on t's right half
func.func @scale(%t: memref<16x32xf32, "UB">, %s: f32, %g: memref<16x32xf32, "GM">) -> index {
  %u = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %g, %u : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.muls %u, %s, %u : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  func.call @bump(%u, %t) : (memref<16x32xf32, "UB">, memref<16x32xf32, "UB">) -> ()
  tile.store %u, %g : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  %c7 = arith.constant 7 : index
  func.return %c7 : index
}
func.func @bump(%u: memref<16x32xf32, "UB">, %t: memref<16x32xf32, "UB">) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tile.exp %u, %u : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %t, %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  %h = tile.view %t[%c0, %c16] {sizes = array<i64: 16, 16>} : memref<16x32xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.relu %h, %h : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
