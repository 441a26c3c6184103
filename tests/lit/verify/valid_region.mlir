// Valid regions (tile.view ... valid [...], docs/ir.md): a tile op's operands must have provably
// equal valid extents (PTO-ISA asserts it at run time), constant extents must lie in the window,
// and a hand-written fusion group may not mix valid regions. Each error is located.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p fuse-tiles --target ascend-a2 2>&1 | %filecheck %s
func.func @k(%a: memref<32x32xf32, "UB">, %b: memref<32x32xf32, "UB">, %r: memref<32x1xf32, "UB">, %vr: index, %vc: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c32 = arith.constant 32 : index
  %m = arith.minsi %vr, %c32 : index
  %va = tile.view %a[%c0, %c0] valid [%vr, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %vb = tile.view %b[%c0, %c0] valid [%m, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  // CHECK: valid_region.mlir:[[# @LINE + 1]]:3: error: 'tile.view' valid extent 40 in dimension 0 is outside 0..32 (the window's size)
  %vx = tile.view %b[%c0, %c0] valid [%c40, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  // CHECK: valid_region.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' operands 0 and 1 have valid regions [%vr, %vc] and [%m, %vc]: their extents in dimension 0 cannot be proven equal
  tile.exp %va, %vb : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  // CHECK: valid_region.mlir:[[# @LINE + 1]]:3: error: 'tile.neg' operands 0 and 1 have valid regions [%vr, %vc] and [32, 32] (its whole shape)
  tile.neg %va, %b : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  // CHECK: valid_region.mlir:[[# @LINE + 1]]:3: error: 'tile.rowsum' operands 0 and 1 have valid regions [%vr, %vc] and [32, 1] (its whole shape): their extents in dimension 0 cannot be proven equal
  tile.rowsum %va, %r : memref<32x32xf32, "UB">, memref<32x1xf32, "UB">
  func.return
}
