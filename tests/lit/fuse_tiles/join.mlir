// Two independent chains that meet in one op (a join). One group of all four would wait for
// the second load before starting (270 cycles against 256 unfused on ascend-910a, whose vector
// ops cost the byte model): plans are judged on the whole block, so the first chain is a span
// that runs while %b loads, the second exp and the join another (249). Each chain's tile is
// last-used by the join; the tiles loaded from GM are last-used by their first readers.
// On ascend-a2 (vendor formulas, fused or not) the vector ops outweigh the load's wait: one span
// of four (189 cycles against 254 unfused).
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-910a | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-910a > %t
// RUN: %tilesched equiv %s %t --target ascend-910a
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s --check-prefix=A2
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t2
// RUN: %tilesched equiv %s %t2 --target ascend-a2
// A2:      tile.load %y, %b
// A2-NEXT: tile.exp %a, %p {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// A2-NEXT: tile.neg %p, %q {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// A2-NEXT: tile.exp %b, %r {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false>}
// A2-NEXT: tile.add %q, %r, %s {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, true, false>}
// A2-NEXT: tile.store %s, %z
// CHECK:      tile.load %y, %b
// CHECK-NEXT: tile.exp %a, %p {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %p, %q {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.exp %b, %r {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.add %q, %r, %s {tile.fusion_group = 1 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.store %s, %z
func.func @join(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %z: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %p = memref.alloc() : memref<16x32xf32, "UB">
  %q = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<16x32xf32, "UB">
  %s = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.load %y, %b : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %p : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %p, %q : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %b, %r : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %q, %r, %s : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %s, %z : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
