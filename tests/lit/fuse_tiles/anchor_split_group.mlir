// Regression for the anchor's second bug (a group that scheduling could not make contiguous was
// silently accepted): a hand-written group has members on both sides of a call, which nothing
// moves across. fuse-tiles splits it into contiguous spans, drops the run of one op and says
// so; no group is left with a member on each side. Accepting the group as written fails here.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 > %t 2> %t.err
// RUN: %filecheck %s < %t
// RUN: %filecheck %s --check-prefix=WARN < %t.err
// RUN: %tilesched opt %t -p insert-sync --target ascend-a2 > %t.synced
// RUN: %tilesched equiv %s %t.synced --target ascend-a2
// CHECK:      tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.call
// CHECK-NEXT: tile.abs %c, %d :
// CHECK-NOT:  tile.fusion_group
// WARN: anchor_split_group.mlir:[[# @LINE + 7]]:3: warning: fuse-tiles: fusion group 5 cannot be one contiguous span (an op it cannot move across sits between its members); split into 1 span(s) of 2 ops
func.func @split(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %w: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b {tile.fusion_group = 5 : i64, tile.fusion_order = 0 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c {tile.fusion_group = 5 : i64, tile.fusion_order = 1 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.call %w {callee = "touch"} : memref<16x32xf32, "GM">
  tile.abs %c, %d {tile.fusion_group = 5 : i64, tile.fusion_order = 2 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
