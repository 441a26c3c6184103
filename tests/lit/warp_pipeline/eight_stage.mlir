// Eight stages (the anchor's eight_stage_dependency): stages 0, 2 and 4 read %a (LDS -> regs),
// stage 6 writes it back, the odd stages compute on other registers. With the high group one
// stage behind, the write must wait for the reads (distance 2 from stage 4: local barrier before
// stage 5) and the next iteration's first read for the write (distance 2 around the loop: before
// stage 7). Both placements find these two; everything else is a plain barrier.
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p warp-pipeline --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p "warp-pipeline{placement=anchor}" --target amd-gfx950 | %filecheck %s
func.func @eight(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %r0 = memref.alloc() : memref<64x64xf16, "local">
  %r1 = memref.alloc() : memref<64x64xf16, "local">
  %r2 = memref.alloc() : memref<64x64xf16, "local">
  %x = memref.alloc() : memref<64x64xf16, "local">
  %y = memref.alloc() : memref<64x64xf16, "local">
  %acc = memref.alloc() : memref<64x64xf32, "local">
  // CHECK:      scf.for
  // CHECK-NEXT:   tile.copy
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.matmul
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.copy
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.matmul
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.copy
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.matmul
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK:        tile.copy
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier local
  // CHECK:        tile.matmul
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT:   sync.barrier{{$}}
  // CHECK-NEXT:   sync.sched_barrier
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %a, %r0 : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "lload0"
    tile.matmul %x, %y, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "dot0"
    tile.copy %a, %r1 : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "lload1"
    tile.matmul %x, %y, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "dot1"
    tile.copy %a, %r2 : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.stage_border "lload2"
    tile.matmul %x, %y, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "dot2"
    tile.copy %x, %a : memref<64x64xf16, "local">, memref<64x64xf16, "LDS">
    tile.stage_border "lstore"
    tile.matmul %x, %y, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
    tile.stage_border "dot3"
  }
  func.return
}
