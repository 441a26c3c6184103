// Regression for the anchor's first bug (pure ops treated as scheduling barriers): index math, a
// view and a constant sit between the members of a chain. They never block a move: the view
// the second member reads moves before the span, the rest after it, and the chain is one span.
// Treating them as barriers would leave the group split (or unformed): this test fails then.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.load %x, %a
// CHECK:      %w = tile.view %big[%off, %c0]
// CHECK:      %scale = arith.constant
// CHECK-NEXT: tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %b, %w {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.muls %w, %scale, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: %k = arith.muli %off, %c16
// CHECK-NEXT: tile.store %d, %y
func.func @bridge(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %big = memref.alloc() : memref<32x32xf32, "UB">
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  %c16 = arith.constant 16 : index
  %off = arith.addi %c16, %c0 : index
  %w = tile.view %big[%off, %c0] {sizes = array<i64: 16, 32>} : memref<32x32xf32, "UB"> -> memref<16x32xf32, "UB">
  %scale = arith.constant 0.5 : f32
  tile.neg %b, %w : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  %k = arith.muli %off, %c16 : index
  tile.muls %w, %scale, %d : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
