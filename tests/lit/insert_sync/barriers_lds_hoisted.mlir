// AMD LDS double buffer whose refill sits in an scf.if (the prefetch of the next block, skipped
// in the last iteration; amd_gemm's shape). Iteration i refills slot (i + 1) mod 2, which the
// previous iteration read, then reads slot i mod 2, which the previous iteration refilled. A
// barrier right before the refill (inside the if) leaves the previous refill pending on the path
// that skips the if, so the reads need a second one: two barriers per iteration. One barrier
// before the if orders both (the fewest: issue 25 item 6). @no_gain: the if's other path leaves
// nothing the later ops conflict with, so the barrier stays inside the branch (hoisting it would
// run it also when the branch is skipped).
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function hoisted --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function hoisted --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function hoisted --arg n=6 | %filecheck %s --check-prefix=SIM
// RUN: env TILESCHED_PURE_PYTHON=1 %tilesched sim %t.mlir --target amd-gfx950 --function hoisted --arg n=6 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function no_gain --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --target amd-gfx950 --function hoisted --arg n=5
// SIM: verdict    ok
// CHECK-LABEL: func.func @hoisted
// CHECK:       scf.for
// CHECK-NEXT:  arith.addi
// CHECK:       sync.barrier local
// CHECK-NEXT:  scf.if
// CHECK-NOT:   sync.barrier
// CHECK:       tile.load
// CHECK-NOT:   sync.barrier
// CHECK:       tile.copy
// CHECK-NOT:   sync.barrier
// CHECK-LABEL: func.func @no_gain
// CHECK:       scf.if
// CHECK-NEXT:  sync.barrier local
// CHECK-NEXT:  tile.load
func.func @hoisted(%g: memref<16x16xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = memref.alloc() : memref<2x16x16xf16, "LDS">
  %r = memref.alloc() : memref<16x16xf16, "local">
  %s0 = tile.slot %d[%c0] : memref<2x16x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
  tile.load %g, %s0 : memref<16x16xf16, "global">, memref<16x16xf16, "LDS">
  scf.for %i = %c0 to %n step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %more = arith.cmpi ult, %i1, %n : index
    %nx = arith.remui %i1, %c2 : index
    %cu = arith.remui %i, %c2 : index
    scf.if %more {
      %next = tile.slot %d[%nx] : memref<2x16x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
      tile.load %g, %next : memref<16x16xf16, "global">, memref<16x16xf16, "LDS">
    }
    %cur = tile.slot %d[%cu] : memref<2x16x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
    tile.copy %cur, %r : memref<16x16xf16, "LDS">, memref<16x16xf16, "local">
    tile.exp %r, %r : memref<16x16xf16, "local">, memref<16x16xf16, "local">
  }
  func.return
}

func.func @no_gain(%g: memref<16x16xf16, "global">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<16x16xf16, "LDS">
  %r = memref.alloc() : memref<16x16xf16, "local">
  tile.copy %a, %r : memref<16x16xf16, "LDS">, memref<16x16xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    %odd = arith.cmpi ult, %i, %c1 : index
    scf.if %odd {
      tile.load %g, %a : memref<16x16xf16, "global">, memref<16x16xf16, "LDS">
    }
    tile.exp %r, %r : memref<16x16xf16, "local">, memref<16x16xf16, "local">
  }
  func.return
}
