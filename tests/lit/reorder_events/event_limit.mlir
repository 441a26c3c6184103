// The done-when kernel: every load first, then every vector op, then every store needs
// 12 live MTE2 -> V flags; insert-sync alone runs out of ids (it widens flags: some vector
// ops wait for a later load than they need).
// reorder-events batches loads so one wait covers several (a consumer waits for the latest
// load it needs), and the flags fit 8 ids with no barrier_all.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s --check-prefix=ALONE
// RUN: %tilesched opt %s -p reorder-events,insert-sync --target ascend-a2 > %t
// RUN: %filecheck %s < %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// RUN: %tilesched sim %t --target ascend-a2 | %filecheck %s --check-prefix=SIM
// ALONE-NOT: sync.barrier_all
// CHECK-NOT: sync.barrier_all
// CHECK-NOT: -> "V", {{([89]|[1-9][0-9])}}{{$}}
// CHECK:      tile.load %x0, %u0
// CHECK:      tile.load %x1, %u1
// CHECK-NEXT: sync.set_flag "MTE2" -> "V", 0
// CHECK-NEXT: sync.wait_flag "MTE2" -> "V", 0
// CHECK-NEXT: tile.exp %u1, %u1
// CHECK-NOT:  sync.wait_flag "MTE2" -> "V"
// CHECK:      tile.exp %u0, %u0
// SIM: verdict ok: no races, no deadlock, no sync violations
func.func @batch(%x: memref<12x16x16xf32, "GM">, %y: memref<12x16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %u0 = memref.alloc() : memref<16x16xf32, "UB">
  %u1 = memref.alloc() : memref<16x16xf32, "UB">
  %u2 = memref.alloc() : memref<16x16xf32, "UB">
  %u3 = memref.alloc() : memref<16x16xf32, "UB">
  %u4 = memref.alloc() : memref<16x16xf32, "UB">
  %u5 = memref.alloc() : memref<16x16xf32, "UB">
  %u6 = memref.alloc() : memref<16x16xf32, "UB">
  %u7 = memref.alloc() : memref<16x16xf32, "UB">
  %u8 = memref.alloc() : memref<16x16xf32, "UB">
  %u9 = memref.alloc() : memref<16x16xf32, "UB">
  %u10 = memref.alloc() : memref<16x16xf32, "UB">
  %u11 = memref.alloc() : memref<16x16xf32, "UB">
  %x0 = tile.slot %x[%c0] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y0 = tile.slot %y[%c0] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x1 = tile.slot %x[%c1] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y1 = tile.slot %y[%c1] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x2 = tile.slot %x[%c2] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y2 = tile.slot %y[%c2] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x3 = tile.slot %x[%c3] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y3 = tile.slot %y[%c3] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x4 = tile.slot %x[%c4] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y4 = tile.slot %y[%c4] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x5 = tile.slot %x[%c5] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y5 = tile.slot %y[%c5] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x6 = tile.slot %x[%c6] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y6 = tile.slot %y[%c6] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x7 = tile.slot %x[%c7] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y7 = tile.slot %y[%c7] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x8 = tile.slot %x[%c8] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y8 = tile.slot %y[%c8] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x9 = tile.slot %x[%c9] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y9 = tile.slot %y[%c9] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x10 = tile.slot %x[%c10] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y10 = tile.slot %y[%c10] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %x11 = tile.slot %x[%c11] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %y11 = tile.slot %y[%c11] : memref<12x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  tile.load %x0, %u0 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x1, %u1 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x2, %u2 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x3, %u3 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x4, %u4 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x5, %u5 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x6, %u6 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x7, %u7 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x8, %u8 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x9, %u9 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x10, %u10 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %x11, %u11 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.exp %u0, %u0 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u1, %u1 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u2, %u2 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u3, %u3 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u4, %u4 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u5, %u5 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u6, %u6 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u7, %u7 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u8, %u8 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u9, %u9 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u10, %u10 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %u11, %u11 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.store %u0, %y0 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u1, %y1 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u2, %y2 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u3, %y3 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u4, %y4 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u5, %y5 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u6, %y6 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u7, %y7 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u8, %y8 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u9, %y9 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u10, %y10 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  tile.store %u11, %y11 : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  func.return
}
