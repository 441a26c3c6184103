// PTOAS test/lit/tile_fusion/fusion_plan_computed_shape_negative_vs_raw_arg.pto and
// fusion_plan_computed_shape_negative_different_args.pto (and fusion_plan_dynamic_shape_negative.pto,
// whose old planner fused no dynamic shape at all): valid regions that may differ at run time are
// never one iteration domain. Here each pair is also a producer -> consumer chain over the same
// storage (the anchor's pairs are independent, which tilesched never groups anyway), so the
// boundary is the valid region alone: minsi(%vrow, 32) against %vrow, and minsi of two different
// arguments, are not proven equal; nothing is fused, and a remark names the boundary.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 --verbose > %t 2> %t.err
// RUN: %filecheck %s < %t
// RUN: %filecheck %s --check-prefix=REMARK < %t.err
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t2
// RUN: %tilesched equiv %s %t2 --target ascend-a2 --arg vrow=40 --arg vcol=7 --arg vrow1=3 --function different_args
// CHECK-NOT: tile.fusion_group
// REMARK: anchor_valid_region_negative.mlir:[[# @LINE + 13]]:3: remark: fuse-tiles: not fused with the 'tile.add' that produces operand 0: valid regions [%row0, %col0] and [%vrow, %vcol] cannot be proven equal (a fusion boundary)
// REMARK: anchor_valid_region_negative.mlir:[[# @LINE + 26]]:3: remark: fuse-tiles: not fused with the 'tile.add' that produces operand 0: valid regions [%row0, %vcol] and [%row1, %vcol]
func.func @vs_raw_arg(%arg0: memref<32x32xf32, "UB">, %arg1: memref<32x32xf32, "UB">, %vrow: index, %vcol: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %row0 = arith.minsi %vrow, %c32 : index
  %col0 = arith.minsi %vcol, %c32 : index
  %t = memref.alloc() : memref<32x32xf32, "UB">
  %tmp0 = tile.view %t[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp1 = tile.view %t[%c0, %c0] valid [%vrow, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %x = tile.view %arg0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %y = tile.view %arg1[%c0, %c0] valid [%vrow, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  tile.add %x, %x, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.mul %tmp1, %tmp1, %y : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
func.func @different_args(%arg0: memref<32x32xf32, "UB">, %arg1: memref<32x32xf32, "UB">, %vrow: index, %vrow1: index, %vcol: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %row0 = arith.minsi %vrow, %c32 : index
  %row1 = arith.minsi %vrow1, %c32 : index
  %t = memref.alloc() : memref<32x32xf32, "UB">
  %tmp0 = tile.view %t[%c0, %c0] valid [%row0, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp1 = tile.view %t[%c0, %c0] valid [%row1, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %x = tile.view %arg0[%c0, %c0] valid [%row0, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %y = tile.view %arg1[%c0, %c0] valid [%row1, %vcol] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  tile.add %x, %x, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp1, %y : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
