// A tile the span reads is used again after the span (a store, later in the block): its flag
// stays false although no later op of the span reads it; the tile only the span reads is a last
// use. A function argument is never a last use, even at its final read.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK: tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: false, false>}
// CHECK: tile.add %c, %arg, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false, false>}
// CHECK: tile.store %b, %y
func.func @later(%x: memref<16x32xf32, "GM">, %arg: memref<16x32xf32, "UB">, %y: memref<16x32xf32, "GM">, %z: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %c, %arg, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %d, %z : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  tile.store %b, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
