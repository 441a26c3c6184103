// A chain of vector ops between a load and a store becomes one span: orders follow the chain,
// each intermediate is last-used by its only reader, the loaded and stored tiles are not (the
// store reads %d after the span), and the span survives insert-sync whole.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %filecheck %s --check-prefix=SYNC < %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// RUN: %tilesched sim %t --target ascend-a2 --json | %filecheck %s --check-prefix=SIM
// CHECK:      tile.load
// CHECK-NEXT: tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false, false>}
// CHECK-NEXT: tile.muls %b, %c2, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.add %c, %a, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.relu %d, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.store
// SYNC:      sync.wait_flag "MTE2" -> "V", 0
// SYNC-NEXT: tile.exp
// SYNC-NEXT: tile.muls
// SYNC-NEXT: tile.add
// SYNC-NEXT: tile.relu
// SYNC-NEXT: sync.set_flag "V" -> "MTE3", 0
// SIM: "fused_spans": 1
func.func @chain(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %c2 = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.muls %b, %c2, %c : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.add %c, %a, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.relu %d, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
