// One LDS buffer shared by adjacent stages (the single-buffered GEMM): an error naming both
// stages, exit 2; with on-conflict=plain a warning, and the loop stays unpipelined (insert-sync's
// local barriers, no phase shift).
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=ERR
// RUN: not %tilesched opt %s -p warp-pipeline --target amd-gfx1250 2>&1 | %filecheck %s --check-prefix=ERR
// RUN: %tilesched opt %s -p "warp-pipeline{on-conflict=plain}" --target amd-gfx950 2>&1 | %filecheck %s --check-prefix=PLAIN
// RUN: %tilesched opt %s -p "warp-pipeline{on-conflict=plain}" --target amd-gfx1250 2>&1 | %filecheck %s --check-prefix=PLAIN
// ERR-NOT: Traceback
func.func @shared(%g: memref<64x64xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "global_to_lds"
    // ERR: adjacent_stages_error.mlir:[[# @LINE + 3]]:5: error: warp-pipeline stages 'global_to_lds' and 'lds_to_regs' both use %a ('tile.load', 'tile.copy') and run at the same time (the high group one stage behind): no barrier can order them; give %a one slot per stage in flight (tile.slot with i mod N); or pass on-conflict=plain to leave this loop unpipelined
    // ERR-NEXT: adjacent_stages_error.mlir:[[# @LINE - 3]]:5: note: 'tile.load' is here
    // PLAIN: adjacent_stages_error.mlir:[[# @LINE + 1]]:5: warning: warp-pipeline stages 'global_to_lds' and 'lds_to_regs' both use %a {{.*}}(tile.slot with i mod N); left unpipelined (on-conflict=plain)
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "lds_to_regs"
  }
  // PLAIN-NOT:  sync.cond_barrier
  // PLAIN:      scf.for
  // PLAIN-NEXT:   sync.barrier local
  // PLAIN-NEXT:   tile.load
  // PLAIN-NEXT:   sync.barrier local
  // PLAIN-NEXT:   tile.copy
  // PLAIN-NEXT: }
  // PLAIN-NOT:  sync.cond_barrier
  // PLAIN-NOT:  tile.stage_border
  func.return
}
