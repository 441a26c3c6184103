// PTOAS test/lit/tile_fusion/mark_last_use_slot_mask_level2.pto: texpands from an SSA scalar,
// tadds, tadd, tsub, tsubs in one group. tilesched: tile.fills %alpha, %dst (fill from an SSA
// scalar), tile.adds, tile.add, tile.sub, tile.subs (issue 27 item 7). Scalars take no flag,
// the written operand's flag is false, so the flags are PTOAS's (IR order): (0), (1, 0),
// (1, 0, 0), (1, 1, 0), (1, 0). (emit-cpp prints tile.fills as TEXPANDS and tile.subs as TSUBS,
// tests/lit/emit_cpp/scalar_ops.mlir; this function's UB arguments it refuses, located.)
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2 --arg alpha=2.0
// CHECK:      tile.fills %alpha, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false>}
// CHECK-NEXT: tile.adds %tmp0, %alpha, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.add %tmp1, %src, %tmp2 {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false, false>}
// CHECK-NEXT: tile.sub %tmp2, %src, %tmp3 {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.subs %tmp3, %alpha, %tmp4 {tile.fusion_group = 0 : i64, tile.fusion_order = 4 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.store %tmp4, %dst
func.func @mark_last_use_slot_mask_level2(%dst: memref<32x32xf32, "GM">, %src: memref<32x32xf32, "UB">, %alpha: f32) attributes {tile.kernel} {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp2 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp3 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp4 = memref.alloc() : memref<32x32xf32, "UB">
  tile.fills %alpha, %tmp0 : f32, memref<32x32xf32, "UB">
  tile.adds %tmp0, %alpha, %tmp1 : memref<32x32xf32, "UB">, f32, memref<32x32xf32, "UB">
  tile.add %tmp1, %src, %tmp2 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.sub %tmp2, %src, %tmp3 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.subs %tmp3, %alpha, %tmp4 : memref<32x32xf32, "UB">, f32, memref<32x32xf32, "UB">
  tile.store %tmp4, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}
