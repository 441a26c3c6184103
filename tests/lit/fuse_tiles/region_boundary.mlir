// A loop between two parts of a chain is a hard boundary (a region): the parts fuse on each side
// and inside the loop body separately; no group spans the loop.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false, false>}
// CHECK-NEXT: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: scf.for
// CHECK-NEXT:   tile.exp %a, %u {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false, false>}
// CHECK-NEXT:   tile.add %u, %c, %c {tile.fusion_group = 1 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: }
// CHECK-NEXT: tile.abs %c, %d {tile.fusion_group = 2 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.relu %d, %e {tile.fusion_group = 2 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NOT:  tile.fusion_group = {{[01]}}
func.func @region(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  %e = memref.alloc() : memref<16x32xf32, "UB">
  %u = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  scf.for %i = %c0 to %c2 step %c1 {
    tile.exp %a, %u : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    tile.add %u, %c, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  }
  tile.abs %c, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.relu %d, %e : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %e, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
