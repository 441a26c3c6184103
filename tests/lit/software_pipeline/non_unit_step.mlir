// A loop from 3 to 20 step 4 (5 iterations): the kernel counts iterations from 0 with step 1
// (%k), so slot indices stay affine `(k + c) mod N` and the induction value is 3 + 4 * (k + c).
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
// CHECK:      scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:   %[[J:.*]] = arith.addi %[[K]], %c1
// CHECK-NEXT:   %[[M:.*]] = arith.muli %[[J]], %c4
// CHECK-NEXT:   %[[IV:.*]] = arith.addi %[[M]], %c3
// CHECK:        arith.remui %[[J]], %c2
func.func @strided(%a: memref<768x32xf16, "global">, %out: memref<768x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c3 to %c20 step %c4 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<768x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<768x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 1, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
