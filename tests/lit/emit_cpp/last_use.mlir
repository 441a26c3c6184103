// emit-cpp prints PTO-ISA style C++: tiles per space, intrinsics with the destination first,
// flags as set_flag / wait_flag, and [[pto::last_use(...)]] on every fused op with one flag per
// emitted tile argument in emitted order (the destination's first, always 0; scalars have none).
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// CHECK:      #include "tilesched/pto_tile.hpp"
// CHECK:      TILESCHED_KERNEL void fused(pto::GlobalTensor<float, 16, 32>& x, pto::GlobalTensor<float, 16, 32>& y) {
// CHECK:        pto::Tile<pto::TileType::Vec, float, 16, 32> a;
// CHECK:        pto::Tile<pto::TileType::Vec, float, 16, 1> r;
// CHECK:        pto::TLOAD(a, x);
// CHECK-NEXT:   pto::set_flag(pto::PIPE_MTE2, pto::PIPE_V, pto::EVENT_ID0);
// CHECK-NEXT:   pto::wait_flag(pto::PIPE_MTE2, pto::PIPE_V, pto::EVENT_ID0);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(b, a, a);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 0)]] pto::TROWMAX(r, b);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TROWEXPANDSUB(b, b, r);
// CHECK-NEXT:   {{\[\[}}pto::last_use(0, 1)]] pto::TMULS(c, b, half);
// CHECK-NEXT:   pto::set_flag(pto::PIPE_V, pto::PIPE_MTE3, pto::EVENT_ID0);
// CHECK-NEXT:   pto::wait_flag(pto::PIPE_V, pto::PIPE_MTE3, pto::EVENT_ID0);
// CHECK-NEXT:   pto::TSTORE(y, c);
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
