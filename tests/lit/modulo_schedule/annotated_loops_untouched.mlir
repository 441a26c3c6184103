// Loops the user already annotated keep their annotations; loops with no tile work are skipped.
// RUN: %tilesched opt %s -p modulo-schedule --target ascend-a2 | %filecheck %s
func.func @k(%x: memref<4x16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %u = memref.alloc() : memref<16x16xf32, "UB">
  // CHECK: tile.load {{.*}} {tile.stage = 0 : i64, tile.order = 1 : i64}
  // CHECK: tile.exp {{.*}} {tile.stage = 1 : i64, tile.order = 0 : i64}
  // CHECK-NOT: tile.ii
  scf.for %i = %c0 to %c4 step %c1 {
    %s = tile.slot %x[%i] : memref<4x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    tile.load %s, %u {tile.stage = 0 : i64, tile.order = 1 : i64} : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.exp %u, %u {tile.stage = 1 : i64, tile.order = 0 : i64} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %k = arith.addi %j, %c1 : index
  }
  func.return
}
