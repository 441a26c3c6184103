// PTOAS test/lit/tile_fusion/fusion_plan_diamond.pto (the anchor's frontend tile fusion, seed 002):
// a diamond DAG of 8 vector ops over fresh argument tiles is ONE group of 8, in block order.
// The span touches 14 tiles but holds at most 4 at once (tiles live from their first to their
// last use in the span, issue 27 item 3), so nothing spills: counting distinct tiles (the old
// model) cut it into two groups of 4.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK: tile.max {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// CHECK-NEXT: tile.sub {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
// CHECK-NEXT: tile.sub {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64
// CHECK-NEXT: tile.exp {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64
// CHECK-NEXT: tile.exp {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 4 : i64
// CHECK-NEXT: tile.mul {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 5 : i64
// CHECK-NEXT: tile.mul {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 6 : i64
// CHECK-NEXT: tile.add {{.*}}{tile.fusion_group = 0 : i64, tile.fusion_order = 7 : i64
// CHECK-NOT: tile.fusion_group = 1
func.func @fusion_plan_diamond(%arg0: memref<32x32xf32, "UB">, %arg1: memref<32x32xf32, "UB">, %arg2: memref<32x32xf32, "UB">, %arg3: memref<32x32xf32, "UB">, %arg4: memref<32x32xf32, "UB">, %arg5: memref<32x32xf32, "UB">) {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp2 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp3 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp4 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp5 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp6 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp7 = memref.alloc() : memref<32x32xf32, "UB">
  tile.max %arg0, %arg1, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.sub %tmp0, %arg2, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.sub %tmp0, %arg3, %tmp2 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp1, %tmp3 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp2, %tmp4 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.mul %tmp3, %arg4, %tmp5 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.mul %tmp4, %arg5, %tmp6 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp5, %tmp6, %tmp7 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
