// A func.call nested in a loop or an if: the region has unit work (the callee's) with unknown
// effects, so it is a boundary like a region with tile ops, fenced by barrier_all. Before, a call
// counted as no work: nothing was inserted around a loop whose only work is a call (the
// simulator found races on %t between the store of one call and the load of the next, and
// double-set flags), nor around an if holding one (races with the ops before and after it).
// Found by the emit-cpp acceptance survey (docs/emit-cpp.md) and its property test
// (tests/transforms/test_insert_sync_calls.py).
// RUN: %tilesched opt %s -p insert-sync | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir | %filecheck %s --check-prefix=EQ
// RUN: %tilesched sim %t.mlir --function branch | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --function branch | %filecheck %s --check-prefix=EQ
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
// CHECK-LABEL: func.func @branch
// CHECK:       tile.matmul
// CHECK-NEXT:  sync.barrier_all
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  func.call @copy
// CHECK-NEXT:  }
// CHECK-NEXT:  sync.barrier_all
func.func @branch(%x16: memref<4x16x16xf16, "GM">, %l1a: memref<16x16xf16, "L1">, %l0a: memref<16x16xf16, "L0A">, %l0b: memref<16x16xf16, "L0B">, %l0c: memref<16x16xf32, "L0C">) {
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  tile.matmul %l0a, %l0b, %l0c : memref<16x16xf16, "L0A">, memref<16x16xf16, "L0B">, memref<16x16xf32, "L0C">
  scf.if %true {
    func.call @copy(%l1a, %l0a) : (memref<16x16xf16, "L1">, memref<16x16xf16, "L0A">) -> ()
  }
  %v2 = tile.slot %x16[%c0] : memref<4x16x16xf16, "GM"> -> memref<16x16xf16, "GM">
  tile.load %v2, %l1a : memref<16x16xf16, "GM">, memref<16x16xf16, "L1">
  func.return
}
func.func @copy(%l1a: memref<16x16xf16, "L1">, %l0a: memref<16x16xf16, "L0A">) {
  tile.copy %l1a, %l0a : memref<16x16xf16, "L1">, memref<16x16xf16, "L0A">
  func.return
}
func.func @work(%src: memref<16x32xf32, "GM">, %t: memref<16x32xf32, "UB">, %dst: memref<16x32xf32, "GM">) {
  tile.load %src, %t : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %t, %dst : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
