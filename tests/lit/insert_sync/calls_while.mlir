// A func.call is a boundary on flag targets: its callee is synchronized as a function of its own
// and a barrier_all before and after the call orders it with the caller (the simulator runs the
// callee's body inline, so the result is checked). An scf.while's rounds are drained at the end
// of each region: the store of one round and the load of the next write and read %a.
// RUN: %tilesched opt %s -p insert-sync | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir --function main | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --function rounds | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --function main | %filecheck %s --check-prefix=EQ
// RUN: %tilesched equiv %s %t.mlir --function rounds | %filecheck %s --check-prefix=EQ
// SIM: verdict    ok
// EQ: : equivalent
func.func @helper(%x: memref<16x16xf32, "UB">, %y: memref<16x16xf32, "UB">) {
  tile.exp %x, %y : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
// CHECK-LABEL: func.func @main
// CHECK:       tile.load
// CHECK-NEXT:  sync.barrier_all
// CHECK-NEXT:  func.call @helper
// CHECK-NEXT:  sync.barrier_all
// CHECK-NEXT:  tile.store
func.func @main(%g: memref<16x16xf32, "GM">, %o: memref<16x16xf32, "GM">) {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  %b = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  func.call @helper(%a, %b) : (memref<16x16xf32, "UB">, memref<16x16xf32, "UB">) -> ()
  tile.store %b, %o : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  func.return
}
// CHECK-LABEL: func.func @rounds
// CHECK:       tile.store
// CHECK:       sync.barrier_all
// CHECK-NEXT:  scf.yield
func.func @rounds(%g: memref<4x16x16xf32, "GM">, %o: memref<16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<16x16xf32, "UB">
  %r = scf.while (%i = %c0) : (index) -> index {
    %cond = arith.cmpi slt, %i, %c3 : index
    scf.condition(%cond) %i : index
  } do {
  ^bb0(%j: index):
    %s = tile.slot %g[%j] : memref<4x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    tile.load %s, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.store %a, %o : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1 : index
  }
  func.return
}
