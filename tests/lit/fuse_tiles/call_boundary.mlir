// An opaque call is a hard boundary: nothing moves across it and no group crosses it, so the
// exp/neg before it and the abs/relu after it form two groups, and no group is left split.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.call %w {callee = "touch"}
// CHECK-NEXT: tile.abs %c, %d {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.relu %d, %e {tile.fusion_group = 1 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NOT:  tile.fusion_group = 0
func.func @call(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %w: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  %e = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.call %w {callee = "touch"} : memref<16x32xf32, "GM">
  tile.abs %c, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.relu %d, %e : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %e, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
