// Issue 10 §4: stages [0, 3] with trip count 2. Four slots would cover three iterations in
// flight, but only two iterations exist, so two slots are ever live and two are allocated
// (TVM allocates four). The result stays race-free and equivalent.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
// CHECK:     memref.alloc() : memref<2x32x32xf16, "shared">
// CHECK-NOT: memref<4x32x32xf16, "shared">
// CHECK-NOT: tile.slot %{{.*}}[%c2]
func.func @short(%a: memref<64x32xf16, "global">, %out: memref<64x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %c2 step %c1 {
    %row = arith.muli %i, %c32 : index
    %src = tile.view %a[%row, %c0] {sizes = array<i64: 32, 32>} : memref<64x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 3, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%row, %c0] {sizes = array<i64: 32, 32>} : memref<64x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 3, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
