// A diamond (one producer, two branches, one join) is one group: both branches read the
// producer's tile, so only the later branch last-uses it; the join last-uses both branches.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.load %x, %a
// CHECK-NEXT: tile.exp %a, %t1 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %t1, %t2 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: false, false>}
// CHECK-NEXT: tile.abs %t1, %t3 {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.add %t2, %t3, %t4 {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.store %t4, %y
func.func @diamond(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %t1 = memref.alloc() : memref<16x32xf32, "UB">
  %t2 = memref.alloc() : memref<16x32xf32, "UB">
  %t3 = memref.alloc() : memref<16x32xf32, "UB">
  %t4 = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %t1 : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %t1, %t2 : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.abs %t1, %t3 : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %t2, %t3, %t4 : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %t4, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
