// Adjacent stages: the register tile a stage's LDS copy fills is consumed by the next stage (or
// by the same stage, @same_stage) of the same group, which waits for its own LDS read
// (s_waitcnt, DESIGN.md §4): every barrier stays plain, as in the anchor's eight_stage_dependency
// (Triton test/TritonGPU/amd/amd-convert-warp-pipeline.mlir), where each tt.dot consumes the
// local_loads of the stage before it with a plain s.barrier between them. One LDS buffer
// written by stage 0 and read by stage 1 is different: those stages run at the same time on the
// two groups, so no barrier can order them; an error names both stages
// (see adjacent_stages_error.mlir).
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --function same_stage | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @adjacent(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %t = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      scf.for
  // CHECK-NEXT:   tile.copy %a, %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %r, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %t
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "ds_read"
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
    tile.exp %s, %t : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "more_math"
  }
  func.return
}

func.func @same_stage(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @same_stage
  // CHECK:        tile.copy %a, %r
  // CHECK-NEXT:   tile.exp %r, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "read_and_use"
    tile.exp %s, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "math"
  }
  func.return
}
