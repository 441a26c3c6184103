// A tile read twice by one op is judged per operand slot: both slots of add %a, %a last-use %a
// (the op's other slot is not a later use); the written slot is always false; mul %b, %b, %b
// overwrites what it reads, so its reads are last uses too.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK: tile.add %a, %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK: tile.mul %b, %b, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK: tile.exp %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, false>}
func.func @repeated(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.add %a, %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.mul %b, %b, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %c, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
