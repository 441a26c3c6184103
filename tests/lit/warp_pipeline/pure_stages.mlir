// Stages that do no work (issue 27 item 8). @flat: a first flat stage of index math only with
// priority 1 gets no `setprio 1` (it would be undone by `setprio 0` right after it). @loop:
// index math after a loop's last border is no stage of its own; it stays in the body and runs
// with the last stage, and the pass says so (a warning at the first such op).
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>/dev/null | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 >/dev/null | %filecheck %s --check-prefix=WARN
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>/dev/null | %tilesched sim - --target amd-gfx950 --arg n=4 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// WARN: pure_stages.mlir:[[# @LINE + 28]]:5: warning: 1 op(s) after the last tile.stage_border do no work (index math): they run with stage 'l1'
// CHECK-LABEL: func.func @flat
// CHECK:       sync.cond_barrier "high"
// CHECK-NOT:   sync.setprio
// CHECK:       tile.copy
// CHECK-NEXT:  sync.sched_barrier
// CHECK-NEXT:  sync.barrier
// CHECK:       scf.for
// CHECK:         tile.exp
// CHECK-NEXT:    %y = arith.addi
// CHECK-NEXT:    sync.sched_barrier
// CHECK-NEXT:    sync.barrier
func.func @flat(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %x = arith.addi %c0, %c1 : index
  tile.stage_border "math" {priority = 1 : i64}
  tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
  tile.stage_border "read"
  tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.stage_border "use"
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "l0"
    tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "l1"
    %y = arith.addi %i, %c1 : index
  }
  func.return
}
