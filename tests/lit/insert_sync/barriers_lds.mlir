// AMD: LDS writes are visible to the other group at the next local barrier; a barrier goes only
// before conflicting accesses (Membar): none between the two independent LDS writes, one before
// the reads. The exp consumes the registers its own group's LDS read filled: the group waits for
// it (s_waitcnt, DESIGN.md §4), no barrier (Triton's Membar ignores register results too).
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target amd-gfx950 | %tilesched sim - --target amd-gfx950 | %filecheck %s --check-prefix=SIM
// SIM: verdict    ok
func.func @lds(%g: memref<64x64xf16, "global">) {
  %a = memref.alloc() : memref<64x64xf16, "LDS">
  %b = memref.alloc() : memref<64x64xf16, "LDS">
  %r = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      tile.load %{{.*}}, %[[A:.*]] :
  // CHECK-NEXT: tile.load
  // CHECK-NEXT: sync.barrier local
  // CHECK-NEXT: tile.copy %[[A]]
  // CHECK-NEXT: tile.exp
  // CHECK-NOT:  sync.barrier
  tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  tile.load %g, %b : memref<64x64xf16, "global">, memref<64x64xf16, "LDS">
  tile.copy %a, %r : memref<64x64xf16, "LDS">, memref<64x64xf16, "local">
  tile.exp %r, %r : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  func.return
}
