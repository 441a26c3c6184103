// Dependences around the loop's back edge. @distance2: stage 0 writes %a and stage 2 reads it
// (distance 2: the barrier between them, before stage 1, is local), and stage 2's read must
// precede the next iteration's write (distance 2 around the loop: the barrier before stage 3);
// stage 3 consumes the register tile stage 2 filled (its own group's LDS result: no barrier).
// @self_pair: a stage whose LDS copy into the other slot feeds its own next iteration (distance
// = number of stages): the other group must see it, one local barrier.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --arg n=5 --function self_pair | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @distance2(%g: memref<64x64xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %t = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @distance2
  // CHECK:      scf.for
  // CHECK-NEXT:   tile.load
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %s, %t
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.copy %a, %r
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %r, %s
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.stage_border "fill"
    tile.exp %s, %t : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "other"
    tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "ds_read"
    tile.exp %r, %s : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "use"
  }
  func.return
}

func.func @self_pair(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s = memref.alloc() : memref<64x64xf16, "local">
  %x = memref.alloc() : memref<64x64xf16, "local">
  // CHECK-LABEL: func.func @self_pair
  // CHECK:      scf.for
  // CHECK:        tile.copy %{{.*}}, %s
  // CHECK-NEXT:   tile.copy %r, %{{.*}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   tile.exp %x, %x
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    %m = arith.remui %i, %c2 : index
    %i1 = arith.addi %i, %c1 : index
    %k = arith.remui %i1, %c2 : index
    %cur = tile.slot %d[%m] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    %next = tile.slot %d[%k] : memref<2x64x64xf16, "LDS"> -> memref<64x64xf16, "LDS">
    tile.copy %cur, %s : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.copy %r, %next : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    tile.stage_border "reads_last_iterations_copy"
    tile.exp %x, %x : memref<64x64xf16, "local">, memref<64x64xf16, "local">
    tile.stage_border "other"
  }
  func.return
}
