// emit-cpp prints a PTO-ISA kernel: __gm__ pointer arguments, a GlobalTensor per global
// buffer, a Tile per on-chip buffer placed by the address plan, intrinsics in the library's
// argument order (TLOAD(tile, global), TSTORE(global, tile), TROWMAX(dst, src, tmp) with a scratch
// tile), flags as set_flag / wait_flag, and [[pto::last_use(...)]] on every fused op with one flag
// per emitted tile argument in emitted order (the destination's first, always 0; scalars have
// none; the scratch tile's 0).
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// CHECK:      #include <pto/pto-inst.hpp>
// CHECK:      __global__ AICORE void fused(__gm__ float* x, __gm__ float* y) {
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> x_gm(x);
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> y_gm(y);
// CHECK-NEXT:   pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null> tmp;
// CHECK-NEXT:   TASSIGN(tmp, [[TMP:[0-9]+]]);
// CHECK-NEXT:   const float half_v = 0.5f;
// CHECK:        pto::Tile<pto::TileType::Vec, float, 16, 1, pto::BLayout::ColMajor, 16, 1, pto::SLayout::NoneBox, 512, pto::PadValue::Null> r;
// CHECK:        pto::TLOAD(a, x_gm);
// CHECK-NEXT:   set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT:   wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(b, a, a);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 0, 0)]] pto::TROWMAX(r, b, tmp);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TROWEXPANDSUB(b, b, r);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1)]] pto::TMULS(c, b, half_v);
// CHECK-NEXT:   set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:   wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:   pto::TSTORE(y_gm, c);
// CHECK-NEXT: }
func.func @fused(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %half = arith.constant 0.5 : f32
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<16x1xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.add %a, %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.rowmax %b, %r : memref<16x32xf32, "UB">, memref<16x1xf32, "UB">
  tile.rowexpand_sub %b, %r, %b : memref<16x32xf32, "UB">, memref<16x1xf32, "UB">, memref<16x32xf32, "UB">
  tile.muls %b, %half, %c : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.store %c, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
