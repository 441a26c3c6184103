// The source document's cross-control case: a loop with work on two units is a black box
// that insert-sync fences with barrier_all; a load and a vector op that do not touch what
// the loop reads or writes move before it (compute first), where the load overlaps the
// vector work on %a instead of waiting for the loop to finish.
// RUN: %tilesched opt %s -p reorder-events --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p reorder-events,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.load %xa, %a
// CHECK:      tile.exp %a, %a
// CHECK:      tile.load %xc, %c
// CHECK:      tile.exp %c, %d
// CHECK:      scf.for
// CHECK:        tile.load
// CHECK:        tile.add %a, %t, %t
// CHECK:      }
// CHECK-NEXT: func.return
func.func @cross(%xa: memref<32x32xf32, "GM">, %xc: memref<32x32xf32, "GM">, %xs: memref<4x32x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<32x32xf32, "UB">
  %c = memref.alloc() : memref<32x32xf32, "UB">
  %d = memref.alloc() : memref<32x32xf32, "UB">
  %t = memref.alloc() : memref<32x32xf32, "UB">
  tile.load %xa, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.exp %a, %a : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %a, %a : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    %s = tile.slot %xs[%i] : memref<4x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    tile.load %s, %t : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    tile.add %a, %t, %t : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  }
  tile.load %xc, %c : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.exp %c, %d : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
