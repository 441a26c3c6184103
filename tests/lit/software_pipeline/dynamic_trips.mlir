// A trip count known only at run time (%n): `scf.if trips >= 3` selects prologue + kernel +
// epilogue (waits 3 / 2, 1, 0 as for a static count); smaller counts run a predicated version
// whose commits are unconditional, so its waits stay exact (1 and 0, not a blanket 0).
// Every count from 0 up is race-free and equivalent to the original loop.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t --target cuda-sm80 --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t --target cuda-sm80 --arg n=2 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t --target cuda-sm80 --arg n=3 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t --target cuda-sm80 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=0
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=1
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=2
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=3
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=4
// RUN: %tilesched equiv %s %t --target cuda-sm80 --arg n=9
// SIM: verdict    ok
// CHECK:      %[[T:.*]] = arith.maxsi %n, %c0
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi sge, %[[T]], %c3
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-COUNT-3: sync.commit_group 0
// CHECK:        %[[UB:.*]] = arith.subi %n, %c3
// CHECK-NEXT:   scf.for %{{.*}} = %c0 to %[[UB]] step %c1 {
// CHECK:          sync.wait_group 0 {pending = 3 : i64}
// CHECK:        sync.wait_group 0 {pending = 2 : i64}
// CHECK:        arith.subi %[[T]], %c3
// CHECK:        sync.wait_group 0 {pending = 1 : i64}
// CHECK:        sync.wait_group 0 {pending = 0 : i64}
// CHECK:      } else {
// CHECK:        %[[G1:.*]] = arith.cmpi sge, %[[T]], %c1
// CHECK-NEXT:   scf.if %[[G1]] {
// CHECK:          tile.load
// CHECK:        sync.commit_group 0
// CHECK:        scf.if %{{.*}} {
// CHECK:          tile.load
// CHECK:        sync.commit_group 0
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     sync.wait_group 0 {pending = 1 : i64}
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     sync.wait_group 0 {pending = 0 : i64}
func.func @dynamic(%a: memref<512x32xf16, "global">, %out: memref<512x32xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 3, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 3, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
