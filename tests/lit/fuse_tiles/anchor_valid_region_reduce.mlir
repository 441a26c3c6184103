// PTOAS test/lit/tile_fusion/fusion_reduce_computed_dynamic_shape_e2e.pto (@reduce_computed_shape_e2e):
// tadd -> tmul -> trowsum whose tiles use separately computed minsi(%vrow, 32) / minsi(%vcol, 32)
// valid regions; the reduction's output is a 32x8 storage with valid [row, 1] (PTOAS:
// !pto.tile_buf<vec, 32x8xf32, valid=?x1>). A row reduction belongs to its input's domain, and
// the valid regions provably agree, so the three ops are one group, as the anchor's PLAN checks.
// And test/lit/tile_fusion/fusion_plan_dynamic_subview_valid_shape.pto: a 2x8 window of a 4x16
// tile with valid [%vrow, %vcol] (pto.subview ... valid [...]) feeding tadd then tmul: one group.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2 --arg vrow=9 --arg vcol=20
// RUN: %tilesched equiv %s %t --target ascend-a2 --arg vrow=2 --arg vcol=3 --function subview_valid_shape
// CHECK-LABEL: func.func @reduce_computed_shape
// CHECK:      tile.add %lhs, %rhs, %add {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// CHECK-NEXT: tile.mul %add, %scale, %mul {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
// CHECK-NEXT: tile.rowsum %mul, %reduce {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64
// CHECK-LABEL: func.func @subview_valid_shape
// CHECK:      tile.add %sub, %sub, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// CHECK-NEXT: tile.mul %tmp0, %sub, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
func.func @reduce_computed_shape(%a0: memref<32x32xf32, "UB">, %b0: memref<32x32xf32, "UB">, %s0: memref<32x32xf32, "UB">, %red0: memref<32x8xf32, "UB">, %vrow: index, %vcol: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %row0 = arith.minsi %vrow, %c32 : index
  %col0 = arith.minsi %vcol, %c32 : index
  %row1 = arith.minsi %vrow, %c32 : index
  %col1 = arith.minsi %vcol, %c32 : index
  %add0 = memref.alloc() : memref<32x32xf32, "UB">
  %mul0 = memref.alloc() : memref<32x32xf32, "UB">
  %lhs = tile.view %a0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %rhs = tile.view %b0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %scale = tile.view %s0[%c0, %c0] valid [%row1, %col1] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %add = tile.view %add0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %mul = tile.view %mul0[%c0, %c0] valid [%row1, %col1] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %reduce = tile.view %red0[%c0, %c0] valid [%row1, %c1] {sizes = array<i64: 32, 1>} : memref<32x8xf32, "UB"> -> memref<32x1xf32, "UB">
  tile.add %lhs, %rhs, %add : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.mul %add, %scale, %mul : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.rowsum %mul, %reduce : memref<32x32xf32, "UB">, memref<32x1xf32, "UB">
  func.return
}
func.func @subview_valid_shape(%src: memref<4x16xf32, "UB">, %vrow: index, %vcol: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %sub = tile.view %src[%c0, %c0] valid [%vrow, %vcol] {sizes = array<i64: 2, 8>} : memref<4x16xf32, "UB"> -> memref<2x8xf32, "UB">
  %t0 = memref.alloc() : memref<2x8xf32, "UB">
  %t1 = memref.alloc() : memref<2x8xf32, "UB">
  %tmp0 = tile.view %t0[%c0, %c0] valid [%vrow, %vcol] {sizes = array<i64: 2, 8>} : memref<2x8xf32, "UB"> -> memref<2x8xf32, "UB">
  %tmp1 = tile.view %t1[%c0, %c0] valid [%vrow, %vcol] {sizes = array<i64: 2, 8>} : memref<2x8xf32, "UB"> -> memref<2x8xf32, "UB">
  tile.add %sub, %sub, %tmp0 : memref<2x8xf32, "UB">, memref<2x8xf32, "UB">, memref<2x8xf32, "UB">
  tile.mul %tmp0, %sub, %tmp1 : memref<2x8xf32, "UB">, memref<2x8xf32, "UB">, memref<2x8xf32, "UB">
  func.return
}
