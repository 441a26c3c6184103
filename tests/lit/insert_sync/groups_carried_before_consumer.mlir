// A double-buffered cp.async loop whose consumer reads the slot the *previous* iteration's copy
// filled (no same-iteration dependence: slots (i + 1) mod 2 and i mod 2 are disjoint): the
// consumer needs its own wait (pending 1, after this iteration's commit); before that fix the
// simulator found the race. The refill of slot (i + 1) mod 2 waits for nothing: the copy that
// last wrote it is on the same in-order queue (as within an iteration), and its reader waited
// for it one iteration ago.
// RUN: %tilesched opt %s -p insert-sync --target cuda-sm80 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target cuda-sm80 | %tilesched sim - --target cuda-sm80 --arg n=5 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// CHECK:      scf.for
// CHECK-NOT:    sync.wait_group
// CHECK:        tile.load %g, %sn
// CHECK-NEXT:   sync.commit_group 0
// CHECK-NEXT:   sync.wait_group 0 {pending = 1 : i64}
// CHECK-NEXT:   tile.copy %sc, %r
func.func @f(%n: index, %g: memref<64x64xf16, "global">, %b: memref<64x64xf16, "local">, %acc: memref<64x64xf32, "local">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lds = memref.alloc() : memref<2x64x64xf16, "shared">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s0 = "tile.slot"(%lds, %c0) : (memref<2x64x64xf16, "shared">, index) -> memref<64x64xf16, "shared">
  tile.load %g, %s0 : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
    %nx = arith.remui %j, %c2 : index
    %cur = arith.remui %i, %c2 : index
    %sn = "tile.slot"(%lds, %nx) : (memref<2x64x64xf16, "shared">, index) -> memref<64x64xf16, "shared">
    %sc = "tile.slot"(%lds, %cur) : (memref<2x64x64xf16, "shared">, index) -> memref<64x64xf16, "shared">
    tile.load %g, %sn : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
    tile.copy %sc, %r : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
    tile.matmul %r, %b, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
  }
  func.return
}
