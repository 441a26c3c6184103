// The two chains of a join are interleaved with ops that are not fused (loads, a store of an
// unrelated tile, index math): the group is scheduled into one contiguous span, the unrelated
// ops move before or after it, every dependence kept (equiv holds after insert-sync).
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// RUN: %tilesched sim %t --target ascend-a2 --json | %filecheck %s --check-prefix=SIM
// CHECK:      tile.load %x, %a
// CHECK-NEXT: tile.load %y, %b
// CHECK-NEXT: tile.exp %a, %p {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %p, %q {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.exp %b, %r {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.add %q, %r, %s {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.load %w, %u
// CHECK-NEXT: tile.store %u, %w
// CHECK-NEXT: tile.store %s, %z
// SIM: "fused_spans": 1
func.func @interleaved(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %w: memref<16x32xf32, "GM">, %z: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %u = memref.alloc() : memref<16x32xf32, "UB">
  %p = memref.alloc() : memref<16x32xf32, "UB">
  %q = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<16x32xf32, "UB">
  %s = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %p : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.load %y, %b : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.neg %p, %q : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.load %w, %u : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %b, %r : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %u, %w : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  tile.add %q, %r, %s : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %s, %z : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
