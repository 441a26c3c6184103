// A flat pipeline (straight-line code, here in an scf.if branch) with an existing barrier
// between its stages: the barrier is that boundary's cluster barrier (kept and fenced; it stays
// plain: the register tile the first stage's LDS copy fills is used after it by the same group,
// which waits for its own LDS result, DESIGN.md §4), no second barrier is added there. Stage 0
// starts after the last sync op before it; ops after the last border are not in the pipeline.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %tilesched sim - --target amd-gfx950 --arg c=1 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @flat(%c: i1, %o: memref<64x64xf16, "global">) {
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %t = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      scf.if
  // CHECK-NEXT:   tile.exp %t, %t
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.cond_barrier "high"
  // CHECK-NEXT:   tile.copy %a, %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %r, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %s
  // CHECK-NEXT:   sync.cond_barrier "low"
  // CHECK-NEXT:   tile.store %s, %o
  scf.if %c {
    tile.exp %t, %t : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    sync.barrier local
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "ds_read"
    sync.barrier
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "more"
    tile.store %s, %o : memref<64x64xf16, "local">, memref<64x64xf16, "global">
  }
  func.return
}
