// Nested pipelines, inner first: the inner loop (copy stage 0, store stage 1) double-buffers
// %r; the pipelined inner loop then moves as one op (stage 1) of the outer loop, whose async
// load (stage 0) double-buffers %sh.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
// CHECK:     %[[SH:.*]] = memref.alloc() : memref<2x128x32xf16, "shared">
// CHECK:     %[[R:.*]] = memref.alloc() : memref<2x32x32xf16, "local">
// CHECK:     sync.commit_group 0
// CHECK:     scf.for %[[I:.*]] = %c0 to %c3 step %c1 {
// CHECK:       sync.commit_group 0
// CHECK-NEXT:  sync.wait_group 0 {pending = 1 : i64}
// CHECK:       tile.copy
// CHECK:       scf.for %[[J:.*]] = %c0 to %c3 step %c1 {
// CHECK:         tile.slot %[[R]]
// CHECK:         tile.copy
// CHECK:         tile.store
// CHECK:       }
// CHECK:       tile.store
// CHECK:     }
// CHECK:     sync.wait_group 0 {pending = 0 : i64}
// CHECK:     scf.for
func.func @nested(%a: memref<512x32xf16, "global">, %out: memref<512x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %sh = memref.alloc() : memref<128x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %c128 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 128, 32>} : memref<512x32xf16, "global"> -> memref<128x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<128x32xf16, "global">, memref<128x32xf16, "shared">
    scf.for %j = %c0 to %c4 step %c1 {
      %row = arith.muli %j, %c32 : index
      %part = tile.view %sh[%row, %c0] {sizes = array<i64: 32, 32>} : memref<128x32xf16, "shared"> -> memref<32x32xf16, "shared">
      tile.copy %part, %r {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
      %orow = arith.addi %off, %row : index
      %dst = tile.view %out[%orow, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
      tile.store %r, %dst {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
    } {tile.stage = 1, tile.order = 1}
  } {tile.async_stages = [0]}
  func.return
}
