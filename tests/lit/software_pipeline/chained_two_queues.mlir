// Three chained stages with two async queues (the TVM async-pipeline RFC's example): stage 0
// loads on queue 0, stage 1 copies shared->shared on queue 1 (an async consumer and producer),
// stage 2 stores. Kernel: wait(0, 1) before the copy, wait(1, 1) before the store; epilogue
// wait(0, 0), wait(1, 1), wait(1, 0). B needs 3 slots, not 2: its reader is asynchronous and
// completes only at the wait before stage 2, after the next load into slot (i+2) mod 2 would
// have been issued (TVM's max-stage+1 rule races there).
// RUN: %tilesched opt %s -p software-pipeline --target %S/Inputs/two_queues.toml -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target %S/Inputs/two_queues.toml | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target %S/Inputs/two_queues.toml
// SIM: verdict    ok
func.func @chain(%a: memref<256x32xf16, "global">, %d: memref<256x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  // CHECK-DAG: memref.alloc() : memref<3x32x32xf16, "shared">
  // CHECK-DAG: memref.alloc() : memref<2x32x32xf16, "shared">
  %b = memref.alloc() : memref<32x32xf16, "shared">
  %c = memref.alloc() : memref<32x32xf16, "shared">
  // Prologue.
  // CHECK:      tile.load
  // CHECK-NEXT: sync.commit_group 0
  // CHECK:      tile.load
  // CHECK-NEXT: sync.commit_group 0
  // CHECK-NEXT: sync.wait_group 0 {pending = 1 : i64}
  // CHECK:      tile.copy
  // CHECK-NEXT: sync.commit_group 1
  // Kernel.
  // CHECK:      scf.for
  // CHECK:        tile.load
  // CHECK-NEXT:   sync.commit_group 0
  // CHECK-NEXT:   sync.wait_group 0 {pending = 1 : i64}
  // CHECK:        tile.copy
  // CHECK-NEXT:   sync.commit_group 1
  // CHECK-NEXT:   sync.wait_group 1 {pending = 1 : i64}
  // CHECK:        tile.store
  // CHECK-NEXT: {{^    }$}}
  // Epilogue.
  // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
  // CHECK:      tile.copy
  // CHECK-NEXT: sync.commit_group 1
  // CHECK-NEXT: sync.wait_group 1 {pending = 1 : i64}
  // CHECK:      tile.store
  // CHECK-NEXT: sync.wait_group 1 {pending = 0 : i64}
  // CHECK:      tile.store
  scf.for %i = %c0 to %c8 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %b {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %b, %c {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "shared">
    %dst = tile.view %d[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %c, %dst {tile.stage = 2, tile.order = 2} : memref<32x32xf16, "shared">, memref<32x32xf16, "global">
  } {tile.async_stages = [0, 1]}
  func.return
}
