// The hand-placed per-buffer flag plan an expert writes for flags_event_limit.mlir (ten
// independent MTE2 -> V chains, ascend-a2: 8 event ids): one flag per buffer for the first
// seven loads, and the eighth id, set after the last load, covers the last three (in-order
// MTE2; V waits once before the first of them). Of the 36 ways to split the ten loads into 8
// in-order flags this one simulates fastest. insert-sync on the sync-free twin, with and
// without reorder-events, must be no slower.
// RUN: %tilesched equiv %S/flags_event_limit.mlir %s --target ascend-a2
// RUN: %tilesched opt %S/flags_event_limit.mlir -p insert-sync --target ascend-a2 > %t.new.mlir
// RUN: %tilesched opt %S/flags_event_limit.mlir -p reorder-events,insert-sync --target ascend-a2 > %t.reo.mlir
// RUN: %tilesched sim %s --target ascend-a2 --json > %t.hand.json
// RUN: %tilesched sim %t.new.mlir --target ascend-a2 --json > %t.new.json
// RUN: %tilesched sim %t.reo.mlir --target ascend-a2 --json > %t.reo.json
// RUN: python %S/Inputs/cycles_at_most.py %t.new.json %t.hand.json | %filecheck %s
// RUN: python %S/Inputs/cycles_at_most.py %t.reo.json %t.hand.json | %filecheck %s
// CHECK: ok: new yes, hand yes
// CHECK: new <= hand: yes
func.func @many(%x: memref<10x16x16xf32, "GM">, %y: memref<16x16xf32, "GM">) {
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
  %z = arith.constant 0 : index
  %t0 = memref.alloc() : memref<16x16xf32, "UB">
  %s0 = tile.slot %x[%c0] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t1 = memref.alloc() : memref<16x16xf32, "UB">
  %s1 = tile.slot %x[%c1] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t2 = memref.alloc() : memref<16x16xf32, "UB">
  %s2 = tile.slot %x[%c2] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t3 = memref.alloc() : memref<16x16xf32, "UB">
  %s3 = tile.slot %x[%c3] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t4 = memref.alloc() : memref<16x16xf32, "UB">
  %s4 = tile.slot %x[%c4] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t5 = memref.alloc() : memref<16x16xf32, "UB">
  %s5 = tile.slot %x[%c5] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t6 = memref.alloc() : memref<16x16xf32, "UB">
  %s6 = tile.slot %x[%c6] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t7 = memref.alloc() : memref<16x16xf32, "UB">
  %s7 = tile.slot %x[%c7] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t8 = memref.alloc() : memref<16x16xf32, "UB">
  %s8 = tile.slot %x[%c8] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  %t9 = memref.alloc() : memref<16x16xf32, "UB">
  %s9 = tile.slot %x[%c9] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  tile.load %s0, %t0 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 0
  tile.load %s1, %t1 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 1
  tile.load %s2, %t2 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 2
  tile.load %s3, %t3 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 3
  tile.load %s4, %t4 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 4
  tile.load %s5, %t5 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 5
  tile.load %s6, %t6 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 6
  tile.load %s7, %t7 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s8, %t8 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s9, %t9 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  sync.set_flag "MTE2" -> "V", 7
  sync.wait_flag "MTE2" -> "V", 0
  tile.exp %t0, %t0 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 1
  tile.exp %t1, %t1 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 2
  tile.exp %t2, %t2 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 3
  tile.exp %t3, %t3 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 4
  tile.exp %t4, %t4 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 5
  tile.exp %t5, %t5 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 6
  tile.exp %t6, %t6 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  sync.wait_flag "MTE2" -> "V", 7
  tile.exp %t7, %t7 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t8, %t8 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t9, %t9 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
