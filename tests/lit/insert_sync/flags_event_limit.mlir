// Ten live MTE2 -> V dependences: ids stay within the limit (8 on ascend-a2, 4 on ascend-910a);
// when ids run out, a pending flag is widened: its set moves after the later load and covers
// both (the earlier consumer waits for the later load, in-order MTE2 makes that enough), no
// barrier_all. The simulator agrees (no race, no violation).
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s --check-prefix=A2
// RUN: %tilesched opt %s -p insert-sync --target ascend-910a | %filecheck %s --check-prefix=A910
// RUN: %tilesched opt %s -p insert-sync --target ascend-910a | %tilesched sim - --target ascend-910a | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok: no races, no deadlock, no sync violations
// A2-NOT: "MTE2" -> "V", {{([89]|[1-9][0-9])}}{{$}}
// A2-NOT: sync.barrier_all
// A2: sync.set_flag "MTE2" -> "V", 7
// A2-NOT: sync.barrier_all
// A910-NOT: "MTE2" -> "V", {{([4-9]|[1-9][0-9])}}{{$}}
// A910-NOT: sync.barrier_all
// A910: sync.set_flag "MTE2" -> "V", 3
// A910-NOT: sync.barrier_all
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
  tile.load %s1, %t1 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s2, %t2 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s3, %t3 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s4, %t4 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s5, %t5 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s6, %t6 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s7, %t7 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s8, %t8 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.load %s9, %t9 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.exp %t0, %t0 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t1, %t1 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t2, %t2 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t3, %t3 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t4, %t4 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t5, %t5 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t6, %t6 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t7, %t7 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t8, %t8 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.exp %t9, %t9 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
