// AMD async global->LDS copies (issue 27 item 2; Triton's stream pipeliner with
// use_async_copy: async_copy_global_to_local, async_commit_group, async_wait before the
// local_load): insert-sync closes each copy into a group on async queue 0, waits before each
// consumer with the largest correct `pending` (the copy of slot i mod 2 was issued one group
// ago), and puts the local barrier the other group needs *after* that wait (a local barrier
// before the wait would not make the copy visible). The copy before the loop is covered by the
// loop's first wait (one group was committed after it by then): nothing waits before the loop.
// The refill of a slot waits for nothing: the earlier copy into it is on the same in-order
// queue and was waited for by its reader. Both engines find it race-free; equiv.
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 -o %t
// RUN: %tilesched sim %t --target amd-gfx950 --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: env TILESCHED_PURE_PYTHON=1 %tilesched sim %t --target amd-gfx950 --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target amd-gfx950 --arg n=5
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx1250 -o %t.1250
// RUN: %tilesched sim %t.1250 --target amd-gfx1250 --arg n=5 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
// CHECK:      tile.load %g, %s0 {pipe = "ASYNC0"}
// CHECK-NEXT: sync.commit_group 0
// CHECK-NEXT: scf.for
// CHECK-NOT:    sync.wait_group
// CHECK:        sync.barrier local
// CHECK-NEXT:   tile.load %g, %sn {pipe = "ASYNC0"}
// CHECK-NEXT:   sync.commit_group 0
// CHECK-NEXT:   sync.wait_group 0 {pending = 1 : i64}
// CHECK-NEXT:   sync.barrier local
// CHECK-NEXT:   tile.copy %sc, %r
// CHECK-NEXT:   tile.matmul
// CHECK-NEXT: }
func.func @f(%n: index, %g: memref<64x64xf16, "global">, %b: memref<64x64xf16, "local">, %acc: memref<64x64xf32, "local">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lds = memref.alloc() : memref<2x64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  %s0 = "tile.slot"(%lds, %c0) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
  tile.load %g, %s0 {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
    %nx = arith.remui %j, %c2 : index
    %cur = arith.remui %i, %c2 : index
    %sn = "tile.slot"(%lds, %nx) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
    %sc = "tile.slot"(%lds, %cur) : (memref<2x64x64xf16, "LDS">, index) -> memref<64x64xf16, "LDS">
    tile.load %g, %sn {pipe = "ASYNC0"} : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
    tile.copy %sc, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
    tile.matmul %r, %b, %acc {accumulate} : memref<64x64xf16, "local">, memref<64x64xf16, "local">, memref<64x64xf32, "local">
  }
  func.return
}
