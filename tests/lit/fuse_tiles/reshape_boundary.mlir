// A reshape is a local boundary: the chain before it and the chain after it iterate over
// different domains (16x32, then 32x16) and fuse separately; the reshape stays between them.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.reshape %c, %r :
// CHECK-NEXT: tile.abs %r, %s {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.relu %s, %t {tile.fusion_group = 1 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
func.func @reshape(%x: memref<16x32xf32, "GM">, %y: memref<32x16xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<32x16xf32, "UB">
  %s = memref.alloc() : memref<32x16xf32, "UB">
  %t = memref.alloc() : memref<32x16xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.reshape %c, %r : memref<16x32xf32, "UB">, memref<32x16xf32, "UB">
  tile.abs %r, %s : memref<32x16xf32, "UB">, memref<32x16xf32, "UB">
  tile.relu %s, %t : memref<32x16xf32, "UB">, memref<32x16xf32, "UB">
  tile.store %t, %y : memref<32x16xf32, "UB">, memref<32x16xf32, "GM">
  func.return
}
