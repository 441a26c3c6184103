// Anchor: Triton test/TritonGPU/amd/amd-convert-warp-pipeline.mlir, @triple_buf_2stage
// ("Triple buffered 2-stage pipeline dependency check"), op for op in the loop: A and B tiles in
// 3-slot LDS rings; stage 0 reads slot i mod 3 of A and B into registers (local_load) and starts
// the async copy of A into slot (i + 2) mod 3 (async_copy_global_to_local + async_commit_group);
// `ttg.async_wait {num = 0}` between the stages; stage 1 starts the copy of B into slot
// (i + 2) mod 3 and runs the dot. The anchor expects the wait kept and fenced
// (sched_barrier / async_wait / sched_barrier; Membar adds the barrier after it, on CDNA4 an
// LDS wait + s_barrier, i.e. a local one) and a local wrap-around barrier. tilesched keeps the
// wait, fenced, with a local barrier after it, and finds the wrap-around barrier needs no LDS
// wait (the slot the next iteration's copy overwrites was read two stages earlier, before the
// local barrier after the wait): one local barrier per iteration where the anchor has two; the
// simulator finds it race-free on both engines. Not translated: the pointer increments and the
// slot index select (tilesched's slots take (i + c) mod 3 directly), the prologue the test
// leaves to its caller (written here: slots 0 and 1 copied and waited), and the epilogue's
// `scf.if %k >= 1` guards (the epilogue's two dots run unconditionally here). Weak spot: the
// epilogue gets a second local barrier before %be0's copy (the LDS barrier walk keeps async
// copies in flight until a wait with pending 0 it can see, and the pipeline's waits are inside
// the span it does not look into): conservative, not wrong.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 -o %t
// RUN: %tilesched sim %t --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: env TILESCHED_PURE_PYTHON=1 %tilesched sim %t --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target amd-gfx950 --arg n=5
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 -o %t.1250
// RUN: %tilesched sim %t.1250 --target amd-gfx1250 --arg n=5 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// CHECK:      sync.barrier local
// CHECK-NEXT: sync.cond_barrier "high"
// CHECK-NEXT: scf.for
// CHECK:        tile.copy %ac, %ra
// CHECK-NEXT:   tile.copy %bc, %rb
// CHECK-NEXT:   tile.load %ga, %an {pipe = "ASYNC0"}
// CHECK-NEXT:   sync.commit_group 0
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   sync.wait_group 0 {pending = 0 : i64}
// CHECK-NEXT:   sync.barrier local
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   tile.load %gb, %bn {pipe = "ASYNC0"}
// CHECK-NEXT:   sync.commit_group 0
// CHECK-NEXT:   tile.matmul %ra, %rb, %acc {accumulate}
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT:   sync.barrier{{$}}
// CHECK-NEXT:   sync.sched_barrier
// CHECK-NEXT: }
// CHECK-NEXT: sync.cond_barrier "low"
// CHECK:      sync.barrier local
// CHECK-NEXT: tile.copy %ae0, %ra
func.func @triple_buf_2stage(%n: index, %ga: memref<256x32xbf16, "global">,
                             %gb: memref<32x256xbf16, "global">, %acc: memref<256x256xf32, "local">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<3x256x32xbf16, "LDS">
  %b = memref.alloc() : memref<3x32x256xbf16, "LDS">
  %ra = memref.alloc() : memref<256x32xbf16, "local">
  %rb = memref.alloc() : memref<32x256xbf16, "local">
  %a0 = tile.slot %a[%c0] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
  %b0 = tile.slot %b[%c0] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
  %a1 = tile.slot %a[%c1] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
  %b1 = tile.slot %b[%c1] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
  tile.load %ga, %a0 {pipe = "ASYNC0"} : memref<256x32xbf16, "global">, memref<256x32xbf16, "LDS">
  tile.load %gb, %b0 {pipe = "ASYNC0"} : memref<32x256xbf16, "global">, memref<32x256xbf16, "LDS">
  sync.commit_group 0
  tile.load %ga, %a1 {pipe = "ASYNC0"} : memref<256x32xbf16, "global">, memref<256x32xbf16, "LDS">
  tile.load %gb, %b1 {pipe = "ASYNC0"} : memref<32x256xbf16, "global">, memref<32x256xbf16, "LDS">
  sync.commit_group 0
  sync.wait_group 0 {pending = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    %cur = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %nx = arith.remui %i2, %c3 : index
    %ac = tile.slot %a[%cur] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
    %bc = tile.slot %b[%cur] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
    %an = tile.slot %a[%nx] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
    %bn = tile.slot %b[%nx] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
    tile.copy %ac, %ra : memref<256x32xbf16, "LDS">, memref<256x32xbf16, "local">
    tile.copy %bc, %rb : memref<32x256xbf16, "LDS">, memref<32x256xbf16, "local">
    tile.load %ga, %an {pipe = "ASYNC0"} : memref<256x32xbf16, "global">, memref<256x32xbf16, "LDS">
    sync.commit_group 0
    tile.stage_border "stage"
    sync.wait_group 0 {pending = 0 : i64}
    tile.load %gb, %bn {pipe = "ASYNC0"} : memref<32x256xbf16, "global">, memref<32x256xbf16, "LDS">
    sync.commit_group 0
    tile.matmul %ra, %rb, %acc {accumulate} : memref<256x32xbf16, "local">, memref<32x256xbf16, "local">, memref<256x256xf32, "local">
    tile.stage_border "stage"
  }
  // epilogue: the two blocks still in flight
  %e0 = arith.remui %n, %c3 : index
  %n1 = arith.addi %n, %c1 : index
  %e1 = arith.remui %n1, %c3 : index
  %ae0 = tile.slot %a[%e0] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
  %be0 = tile.slot %b[%e0] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
  tile.copy %ae0, %ra : memref<256x32xbf16, "LDS">, memref<256x32xbf16, "local">
  tile.copy %be0, %rb : memref<32x256xbf16, "LDS">, memref<32x256xbf16, "local">
  tile.matmul %ra, %rb, %acc {accumulate} : memref<256x32xbf16, "local">, memref<32x256xbf16, "local">, memref<256x256xf32, "local">
  sync.wait_group 0 {pending = 0 : i64}
  %ae1 = tile.slot %a[%e1] : memref<3x256x32xbf16, "LDS"> -> memref<256x32xbf16, "LDS">
  %be1 = tile.slot %b[%e1] : memref<3x32x256xbf16, "LDS"> -> memref<32x256xbf16, "LDS">
  tile.copy %ae1, %ra : memref<256x32xbf16, "LDS">, memref<256x32xbf16, "local">
  tile.copy %be1, %rb : memref<32x256xbf16, "LDS">, memref<32x256xbf16, "local">
  tile.matmul %ra, %rb, %acc {accumulate} : memref<256x32xbf16, "local">, memref<32x256xbf16, "local">, memref<256x256xf32, "local">
  func.return
}
