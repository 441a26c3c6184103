// Negative cases: a copy (never fused) reads what exp writes and feeds add, which also reads exp's
// tile directly: exp and add cannot be one span (the copy would have to sit both after exp and
// before add), so exp stays alone while add and the next exp fuse. And a scalar produced by a
// conditional (a region: a hard boundary) feeds muls through SSA: muls cannot move above the
// conditional, so it does not join that group.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2 --arg flag=1
// CHECK:      tile.exp %a, %b :
// CHECK-NEXT: tile.copy %b, %c :
// CHECK-NEXT: tile.add %b, %c, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 0
// CHECK-NEXT: tile.exp %d, %e {tile.fusion_group = 0 : i64, tile.fusion_order = 1
// CHECK:      tile.muls %e, %s, %e :
// CHECK-NOT:  tile.fusion_group = 1
func.func @ordering(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %flag: i1) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  %e = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.copy %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %b, %c, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %d, %e : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  %s = scf.if %flag -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  tile.muls %e, %s, %e : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.store %e, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
