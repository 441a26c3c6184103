// Issue 28 §6 (audit: hand-written tile.last_use flags that contradict liveness were printed by
// emit-cpp as they are and equiv ignored them, including a buffer both dead and live in one
// op): a flag claiming a buffer dead while it is read later is a located error in verify and
// every command that reads the IR; the flags fuse-tiles writes pass.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched sim %s --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched equiv %s %s --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched tune %s --target ascend-a2 --budget 1 --jobs 1 2>&1 | %filecheck %s
// RUN: sed -e 's/last_use = array<i1: true, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">$/last_use = array<i1: false, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">/' %s > %t.ok.mlir
// RUN: %tilesched opt %t.ok.mlir -p verify --target ascend-a2 | %filecheck %s --check-prefix=OK
// RUN: %tilesched opt %t.ok.mlir -p insert-sync --target ascend-a2 > %t.sync.mlir
// RUN: %tilesched equiv %t.ok.mlir %t.sync.mlir --target ascend-a2
// RUN: sed -e 's/tile.add %c, %a, %d {\(.*\)array<i1: true, true, false>}/tile.add %c, %c, %d {\1array<i1: true, false, false>}/' %t.ok.mlir | not %tilesched opt - -p verify --target ascend-a2 2>&1 | %filecheck %s --check-prefix=BOTH
// CHECK-NOT: internal error
// CHECK: last_use_wrong.mlir:[[# @LINE + 10]]:3: error: 'tile.last_use' flags operand #0 (%a) of 'tile.exp' as its last use, but its elements may be read again before they are overwritten
// OK: tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false, false>}
// BOTH: <stdin>:[[# @LINE + 10]]:3: error: 'tile.last_use' flags operands #0 and #1 of 'tile.add', the same buffer %c, dead and live at once
func.func @chain(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %c2 = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.muls %b, %c2, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>} : memref<16x32xf32, "UB">, f32, memref<16x32xf32, "UB">
  tile.add %c, %a, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64, tile.last_use = array<i1: true, true, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.relu %d, %d {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64, tile.last_use = array<i1: true, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
