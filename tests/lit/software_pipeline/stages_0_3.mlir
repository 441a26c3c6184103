// Stages [0, 3]: the producer runs three iterations ahead, so 4 slots, steady-state wait 3, and
// the epilogue drains with waits 2, 1, 0 (the in-flight count = producer head - consumer head).
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
func.func @stages_0_3(%a: memref<512x32xf16, "global">, %out: memref<512x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // CHECK: %[[SH:.*]] = memref.alloc() : memref<4x32x32xf16, "shared">
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  // Prologue: three loads, three groups, no wait.
  // CHECK-COUNT-3: sync.commit_group 0
  // CHECK-NOT:  sync.wait_group
  // CHECK:      scf.for %[[I:.*]] = %c0 to %c13 step %c1 {
  // CHECK:        %[[AHEAD:.*]] = arith.addi %[[I]], %c3
  // CHECK:        arith.remui %[[AHEAD]], %c4
  // CHECK:        sync.commit_group 0
  // CHECK-NEXT:   sync.wait_group 0 {pending = 3 : i64}
  // CHECK-NEXT:   %[[K:.*]] = arith.remui %[[I]], %c4
  // CHECK-NEXT:   tile.slot %[[SH]][%[[K]]]
  // CHECK:      {{^    }$}}
  // CHECK-NEXT: sync.wait_group 0 {pending = 2 : i64}
  // CHECK-NEXT: tile.slot %[[SH]][%c1]
  // CHECK:      sync.wait_group 0 {pending = 1 : i64}
  // CHECK-NEXT: tile.slot %[[SH]][%c2]
  // CHECK:      sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT: tile.slot %[[SH]][%c3]
  // CHECK-NOT:  sync.
  // CHECK:      func.return
  scf.for %i = %c0 to %c16 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 3, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 3, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
