// Issue 28 §7 (audit: "priority = -1 becomes 'internal error: the pipeline produced invalid IR'
// located at the wrong line; 2^40 is emitted as setprio 1099511627776; AMD takes 0..3"): a stage
// priority outside 0..3 is a located error at its border, before any pass runs.
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s
// RUN: sed -e 's/priority = -1/priority = 1099511627776/' %s | not %tilesched opt - -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=HUGE
// RUN: sed -e 's/priority = -1/priority = 4/' %s | not %tilesched opt - -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=FOUR
// RUN: sed -e 's/priority = -1/priority = 3/' %s | %tilesched opt - -p warp-pipeline --target amd-gfx950 | %filecheck %s --check-prefix=THREE
// RUN: sed -e 's/tile.stage_border "a" {priority = -1 : i64}/sync.setprio 7/' %s | not %tilesched opt - --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=SETPRIO
// CHECK-NOT: internal error
// CHECK: stage_priority.mlir:[[# @LINE + 11]]:5: error: 'tile.stage_border' priority must be in 0..3 (the hardware's s_setprio range), got -1
// HUGE: <stdin>:[[# @LINE + 10]]:5: error: 'tile.stage_border' priority must be in 0..3 (the hardware's s_setprio range), got 1099511627776
// FOUR: <stdin>:[[# @LINE + 9]]:5: error: 'tile.stage_border' priority must be in 0..3 (the hardware's s_setprio range), got 4
// THREE: sync.setprio 3
// SETPRIO: <stdin>:[[# @LINE + 7]]:5: error: 'sync.setprio' priority must be in 0..3 (the hardware's s_setprio range), got 7
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    tile.fill %x {value = 1.0 : f32} : memref<64x64xf16, "local">
    tile.stage_border "a" {priority = -1 : i64}
    tile.fill %x {value = 2.0 : f32} : memref<64x64xf16, "local">
    tile.stage_border "b"
  }
  func.return
}
