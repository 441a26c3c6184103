// Views and slots whose offsets are constants are checked against their source before any pass
// runs, not only when the simulator reaches them (issue 11).
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%g: memref<16x16xf32, "GM">, %m: memref<2x16x16xf32, "UB">) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %neg = arith.subi %c0, %c2 : index
  %c10 = arith.muli %c5, %c2 : index
  // CHECK: constant_windows.mlir:[[# @LINE + 1]]:3: error: 'tile.view' window [8, 24) in dimension 0 is outside its source dimension of size 16
  %v = tile.view %g[%c8, %c0] {sizes = array<i64: 16, 16>} : memref<16x16xf32, "GM"> -> memref<16x16xf32, "GM">
  // CHECK: constant_windows.mlir:[[# @LINE + 1]]:3: error: 'tile.view' window [-2, 6) in dimension 1 is outside its source dimension of size 16
  %w = tile.view %g[%c0, %neg] {sizes = array<i64: 8, 8>} : memref<16x16xf32, "GM"> -> memref<8x8xf32, "GM">
  // CHECK: constant_windows.mlir:[[# @LINE + 1]]:3: error: 'tile.view' window [10, 18) in dimension 0 is outside its source dimension of size 16
  %x = tile.view %g[%c10, %c8] {sizes = array<i64: 8, 8>} : memref<16x16xf32, "GM"> -> memref<8x8xf32, "GM">
  // CHECK-NOT: error: 'tile.view' window [8, 16)
  %ok = tile.view %g[%c8, %c8] {sizes = array<i64: 8, 8>} : memref<16x16xf32, "GM"> -> memref<8x8xf32, "GM">
  // CHECK: constant_windows.mlir:[[# @LINE + 1]]:3: error: 'tile.slot' index 5 is outside 0..1 (the source has 2 slots)
  %s = tile.slot %m[%c5] : memref<2x16x16xf32, "UB"> -> memref<16x16xf32, "UB">
  // CHECK: constant_windows.mlir:[[# @LINE + 1]]:3: error: 'tile.slot' index -2 is outside 0..1 (the source has 2 slots)
  %t = tile.slot %m[%neg] : memref<2x16x16xf32, "UB"> -> memref<16x16xf32, "UB">
  func.return
}
