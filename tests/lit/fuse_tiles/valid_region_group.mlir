// A hand-written fusion group whose members' valid regions may differ (%vr against %vr2) is
// not one iteration domain: fuse-tiles refuses it with the member's location (exit 2).
// RUN: not %tilesched opt %s -p fuse-tiles --target ascend-a2 2>&1 | %filecheck %s
func.func @k(%a: memref<32x32xf32, "UB">, %b: memref<32x32xf32, "UB">, %vr: index, %vr2: index, %vc: index) {
  %c0 = arith.constant 0 : index
  %va = tile.view %a[%c0, %c0] valid [%vr, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %vb = tile.view %b[%c0, %c0] valid [%vr, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %wb = tile.view %b[%c0, %c0] valid [%vr2, %vc] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  tile.exp %va, %vb {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  // CHECK: valid_region_group.mlir:[[# @LINE + 1]]:3: error: fusion group 0 mixes valid regions: those of 'tile.neg' and 'tile.exp' cannot be proven equal
  tile.neg %wb, %wb {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
