// AMD: an LDS access still pending at the end of a loop body meets the next iteration's
// accesses. @slots: the body writes slot i mod 2 last and reads slot (i + 1) mod 2 first;
// disjoint within one iteration, the same slot one iteration apart, so the read needs a local
// barrier (it once got none: compared at the same iteration, the slots looked disjoint). The exp
// consumes its own group's LDS result: no barrier (DESIGN.md §4).
// @strided: a write of row block i and a later read of row block i + 1 of one LDS buffer never
// meet; but the read of iteration i - 1 (row block i) meets the write of iteration i: one local
// barrier before the write, none for the exp.
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx1250 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 > %t.mlir
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function slots | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target amd-gfx950 --function strided | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @slots(%g: memref<16x16xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d = memref.alloc() : memref<2x16x16xf16, "LDS">
  %r = memref.alloc() : memref<16x16xf16, "local">
  // CHECK-LABEL: func.func @slots
  // CHECK:       scf.for
  // CHECK:       sync.barrier local
  // CHECK-NEXT:  tile.copy
  // CHECK-NEXT:  tile.exp
  // CHECK-NOT:   sync.barrier
  // CHECK:       func.return
  scf.for %i = %c0 to %c3 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %n = arith.remui %i1, %c2 : index
    %m = arith.remui %i, %c2 : index
    %next = tile.slot %d[%n] : memref<2x16x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
    tile.copy %next, %r : memref<16x16xf16, "LDS">, memref<16x16xf16, "local">
    tile.exp %r, %r : memref<16x16xf16, "local">, memref<16x16xf16, "local">
    %cur = tile.slot %d[%m] : memref<2x16x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
    tile.load %g, %cur : memref<16x16xf16, "global">, memref<16x16xf16, "LDS">
  }
  func.return
}

func.func @strided(%g: memref<16x16xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<96x16xf16, "LDS">
  %r = memref.alloc() : memref<16x16xf16, "local">
  // CHECK-LABEL: func.func @strided
  // CHECK:       scf.for
  // CHECK:       tile.view
  // CHECK-NEXT:  tile.copy
  // CHECK-NEXT:  tile.exp
  // CHECK-NEXT:  tile.view
  // CHECK-NEXT:  sync.barrier local
  // CHECK-NEXT:  tile.load
  // CHECK-NOT:   sync.barrier
  // CHECK:       func.return
  scf.for %i = %c0 to %c4 step %c1 {
    %row = arith.muli %i, %c16 : index
    %row1 = arith.addi %row, %c16 : index
    %next = tile.view %a[%row1, %c0] {sizes = array<i64: 16, 16>} : memref<96x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
    tile.copy %next, %r : memref<16x16xf16, "LDS">, memref<16x16xf16, "local">
    tile.exp %r, %r : memref<16x16xf16, "local">, memref<16x16xf16, "local">
    %cur = tile.view %a[%row, %c0] {sizes = array<i64: 16, 16>} : memref<96x16xf16, "LDS"> -> memref<16x16xf16, "LDS">
    tile.load %g, %cur : memref<16x16xf16, "global">, memref<16x16xf16, "LDS">
  }
  func.return
}
