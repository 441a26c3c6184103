// A loop whose body's only queued work is a func.call: the loop has unit work (the callee's),
// so it is a boundary like a loop with tile ops, and each call is fenced by barrier_all. Before,
// the call counted as no work, nothing was inserted around it, and the simulator found races on
// %t between the store of one call and the load of the next (and double-set flags). Found by
// the emit-cpp acceptance survey (docs/emit-cpp.md).
// RUN: %tilesched opt %s -p insert-sync | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir | %filecheck %s --check-prefix=EQ
// RUN: %tilesched opt %s -p reorder-events,insert-sync > %t2.mlir
// RUN: %tilesched sim %t2.mlir | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// EQ: : equivalent
// CHECK-LABEL: func.func @lc
// CHECK:       scf.for
// CHECK:       sync.barrier_all
// CHECK-NEXT:  func.call @work
// CHECK-NEXT:  sync.barrier_all
func.func @lc(%x: memref<4x16x32xf32, "GM">, %y: memref<4x16x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<16x32xf32, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    %xs = tile.slot %x[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    %ys = tile.slot %y[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    func.call @work(%xs, %t, %ys) : (memref<16x32xf32, "GM">, memref<16x32xf32, "UB">, memref<16x32xf32, "GM">) -> ()
  }
  func.return
}
func.func @work(%src: memref<16x32xf32, "GM">, %t: memref<16x32xf32, "UB">, %dst: memref<16x32xf32, "GM">) {
  tile.load %src, %t : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %t, %dst : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
