// Priorities: setprio where the priority changes from one stage to the next (a stage without
// one runs at 0), the first stage's priority set before the pipeline, and a reset to 0 after it
// when the pipeline ends at another priority. No setprio at all when every stage runs at 0.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @loop
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: sync.setprio 2
  // CHECK-NEXT: scf.for
  // CHECK-NEXT:   tile.exp
  // CHECK-NEXT:   sync.setprio 0
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp
  // CHECK-NEXT:   sync.setprio 1
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp
  // CHECK-NEXT:   sync.setprio 2
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.setprio 0
  // CHECK-NEXT: sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a" {priority = 2 : i64}
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b"
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "c" {priority = 1 : i64}
  }
  func.return
}

func.func @flat() {
  %x = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @flat
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: tile.exp
  // CHECK-NEXT: sync.setprio 3
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: sync.barrier
  // CHECK-NEXT: sync.sched_barrier
  // CHECK-NEXT: tile.exp
  // CHECK-NEXT: sync.setprio 0
  // CHECK-NEXT: sync.cond_barrier "low"
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "a" {priority = 0 : i64}
  tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "b" {priority = 3 : i64}
  func.return
}

func.func @all_zero(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @all_zero
  // CHECK-NOT:   sync.setprio
  // CHECK:       func.return
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "a" {priority = 0 : i64}
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "b"
  }
  func.return
}
