// Triton's eight_stage_dependency (test/TritonGPU/amd/amd-convert-warp-pipeline.mlir, the
// anchor), translated op for op: stages 0, 2 and 4 read slices of the A and B LDS tiles into
// registers (local_load), stages 0 and 2 also load the next global tiles into registers, stages
// 1, 3, 5 and 7 multiply the registers the stage before loaded (tt.dot), stage 6 stores the
// global tiles into LDS (local_store). Each dot consumes its own group's LDS reads: no local
// barrier (s_waitcnt, DESIGN.md §4). The anchor's two local barriers: after stage 4's reads (the
// other group's stores in stage 6 must wait for them) and after stage 6's stores (the next
// iteration's reads); every other boundary is a plain s.barrier.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p "warp-pipeline{placement=anchor}" --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %tilesched sim - --target amd-gfx950 --arg n=6 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @eight_stage_dependency(%n: index, %ga: memref<8x64x64xf16, "global">, %gb: memref<8x64x64xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %b = memref.alloc() : memref<64x64xf16, "LDS">
  %ra = memref.alloc() : memref<64x64xf16, "local">
  %rb = memref.alloc() : memref<64x64xf16, "local">
  %a0 = memref.alloc() : memref<64x16xf16, "local">
  %b0 = memref.alloc() : memref<16x64xf16, "local">
  %a1 = memref.alloc() : memref<64x16xf16, "local">
  %b1 = memref.alloc() : memref<16x64xf16, "local">
  %a2 = memref.alloc() : memref<64x16xf16, "local">
  %b2 = memref.alloc() : memref<16x64xf16, "local">
  %a3 = memref.alloc() : memref<64x16xf16, "local">
  %b3 = memref.alloc() : memref<16x64xf16, "local">
  %acc = memref.alloc() : memref<64x64xf32, "local">
  %sa0 = tile.view %a[%c0, %c0] {sizes = array<i64: 64, 16>} : memref<64x64xf16, "LDS"> -> memref<64x16xf16, "LDS">
  %sb0 = tile.view %b[%c0, %c0] {sizes = array<i64: 16, 64>} : memref<64x64xf16, "LDS"> -> memref<16x64xf16, "LDS">
  %sa1 = tile.view %a[%c0, %c16] {sizes = array<i64: 64, 16>} : memref<64x64xf16, "LDS"> -> memref<64x16xf16, "LDS">
  %sb1 = tile.view %b[%c16, %c0] {sizes = array<i64: 16, 64>} : memref<64x64xf16, "LDS"> -> memref<16x64xf16, "LDS">
  %sa2 = tile.view %a[%c0, %c32] {sizes = array<i64: 64, 16>} : memref<64x64xf16, "LDS"> -> memref<64x16xf16, "LDS">
  %sb2 = tile.view %b[%c32, %c0] {sizes = array<i64: 16, 64>} : memref<64x64xf16, "LDS"> -> memref<16x64xf16, "LDS">
  %sa3 = tile.view %a[%c0, %c48] {sizes = array<i64: 64, 16>} : memref<64x64xf16, "LDS"> -> memref<64x16xf16, "LDS">
  %sb3 = tile.view %b[%c48, %c0] {sizes = array<i64: 16, 64>} : memref<64x64xf16, "LDS"> -> memref<16x64xf16, "LDS">
  // CHECK:      sync.cond_barrier "high"
  // CHECK-NEXT: scf.for
  // CHECK-COUNT-2: tile.copy %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.matmul %a0
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-COUNT-2: tile.copy %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.matmul %a1
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-COUNT-4: tile.copy %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.matmul %a2
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-COUNT-2: tile.copy %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.matmul %a3
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  // CHECK-NEXT: sync.cond_barrier "low"
  scf.for %i = %c0 to %n step %c1 {
    %k = arith.remui %i, %c8 : index
    %gak = tile.slot %ga[%k] : memref<8x64x64xf16, "global"> -> memref<64x64xf16, "global">
    tile.load %gak, %ra : memref<64x64xf16, "global">, memref<64x64xf16, "local">
    tile.copy %sa0, %a0 : memref<64x16xf16, "LDS">, memref<64x16xf16, "local">
    tile.copy %sb0, %b0 : memref<16x64xf16, "LDS">, memref<16x64xf16, "local">
    tile.stage_border "stage"
    tile.matmul %a0, %b0, %acc {accumulate} : memref<64x16xf16, "local">, memref<16x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "stage"
    %gbk = tile.slot %gb[%k] : memref<8x64x64xf16, "global"> -> memref<64x64xf16, "global">
    tile.load %gbk, %rb : memref<64x64xf16, "global">, memref<64x64xf16, "local">
    tile.copy %sa1, %a1 : memref<64x16xf16, "LDS">, memref<64x16xf16, "local">
    tile.copy %sb1, %b1 : memref<16x64xf16, "LDS">, memref<16x64xf16, "local">
    tile.stage_border "stage"
    tile.matmul %a1, %b1, %acc {accumulate} : memref<64x16xf16, "local">, memref<16x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "stage"
    tile.copy %sa2, %a2 : memref<64x16xf16, "LDS">, memref<64x16xf16, "local">
    tile.copy %sb2, %b2 : memref<16x64xf16, "LDS">, memref<16x64xf16, "local">
    tile.copy %sa3, %a3 : memref<64x16xf16, "LDS">, memref<64x16xf16, "local">
    tile.copy %sb3, %b3 : memref<16x64xf16, "LDS">, memref<16x64xf16, "local">
    tile.stage_border "stage"
    tile.matmul %a2, %b2, %acc {accumulate} : memref<64x16xf16, "local">, memref<16x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "stage"
    tile.copy %ra, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    tile.copy %rb, %b : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    tile.stage_border "stage"
    tile.matmul %a3, %b3, %acc {accumulate} : memref<64x16xf16, "local">, memref<16x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "stage"
  }
  func.return
}
