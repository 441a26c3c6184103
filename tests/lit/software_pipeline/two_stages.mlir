// Two stages, the first asynchronous (cp.async): 2 slots, steady-state wait 1, epilogue wait 0.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
func.func @two_stages(%a: memref<256x32xf16, "global">, %out: memref<256x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  // CHECK:     %[[SH:.*]] = memref.alloc() : memref<2x32x32xf16, "shared">
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  // Prologue: iteration 0 of stage 0.
  // CHECK:     %[[S0:.*]] = tile.slot %[[SH]][%c0]
  // CHECK:     tile.load %{{.*}}, %[[S0]]
  // CHECK-NEXT: sync.commit_group 0
  // Kernel: stage 0 of iteration i+1, then stage 1 of iteration i.
  // CHECK:     scf.for %[[I:.*]] = %c0 to %c7 step %c1 {
  // CHECK:       %[[NEXT:.*]] = arith.addi %[[I]], %c1
  // CHECK:       %[[K1:.*]] = arith.remui %[[NEXT]], %c2
  // CHECK:       %[[W:.*]] = tile.slot %[[SH]][%[[K1]]]
  // CHECK-NEXT:  tile.load %{{.*}}, %[[W]]
  // CHECK-NEXT:  sync.commit_group 0
  // CHECK-NEXT:  sync.wait_group 0 {pending = 1 : i64}
  // CHECK-NEXT:  %[[K0:.*]] = arith.remui %[[I]], %c2
  // CHECK-NEXT:  %[[R:.*]] = tile.slot %[[SH]][%[[K0]]]
  // CHECK-NEXT:  tile.copy %[[R]], %{{.*}}
  // CHECK-NOT:   sync.
  // CHECK:     {{^    }$}}
  // Epilogue: stage 1 of iteration 7, after everything in flight completed.
  // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT: %[[L:.*]] = tile.slot %[[SH]][%c1]
  // CHECK-NEXT: tile.copy %[[L]], %{{.*}}
  // CHECK-NOT:  sync.
  // CHECK:      func.return
  scf.for %i = %c0 to %c8 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 1, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
