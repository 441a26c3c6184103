// PTOAS test/lit/tile_fusion/op_scheduling_natural_split_e2e.pto: A, then the store of A's
// result, then B and C reading it. Fusing [A, B, C] moves the store behind the span, so MTE3
// waits for all of V: on ascend-910a (byte-model vector costs) 162 cycles against 128 without
// fusion (27% slower, issue 27 item 4). fuse-tiles judges plans on the whole block (every unit,
// the flags insert-sync will plan): A stays alone and [B, C] is the span, the anchor's result,
// and the kernel is not slower than unfused (tests/transforms/test_fuse_tiles_anchors.py
// compares the simulated cycles).
// On ascend-a2 the vector ops cost the vendor's formulas, fused or not (each about 2.8x the
// store): the span saves more V time than the store waits, so [A, B, C] is one span there
// (274 cycles against 318 unfused, 277 for the natural split).
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-910a | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-910a > %t
// RUN: %tilesched equiv %s %t --target ascend-910a
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s --check-prefix=A2
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t2
// RUN: %tilesched equiv %s %t2 --target ascend-a2
// CHECK:      tile.add %full0, %full1, %tmp0 :
// CHECK-NEXT: tile.store %tmp0, %dst
// CHECK-NEXT: tile.add %tmp0, %full2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// CHECK-NEXT: tile.add %tmp1, %full0, %tmp2 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
// CHECK-NOT:  tile.fusion_group = 1
// A2:      tile.add %full0, %full1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// A2-NEXT: tile.add %tmp0, %full2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
// A2-NEXT: tile.add %tmp1, %full0, %tmp2 {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64
// A2-NEXT: tile.store %tmp0, %dst
func.func @op_scheduling_natural_split_e2e(%dst: memref<32x32xf32, "GM">, %full0: memref<32x32xf32, "UB">, %full1: memref<32x32xf32, "UB">, %full2: memref<32x32xf32, "UB">) {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp2 = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %full0, %full1, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %tmp0, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  tile.add %tmp0, %full2, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp1, %full0, %tmp2 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
