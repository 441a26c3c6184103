// PTOAS test/lit/tile_fusion/fusion_computed_dynamic_shape_e2e.pto (@computed_shape_e2e): three
// tadds whose tiles have a static 32x32 storage and a run-time valid region from separately
// computed but equal expressions (minsi(%vrow, 32) three times, once with its operands swapped).
// The valid regions provably agree (ir/valid.py: same arith expression), so the three ops are one
// group, as the anchor's PLAN checks; the result runs on the simulator and stays equivalent.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2 --arg vrow=5 --arg vcol=40
// RUN: %tilesched sim %t --target ascend-a2 --arg vrow=17 --arg vcol=9 | %filecheck %s --check-prefix=SIM
// CHECK:      tile.add %a, %b, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64
// CHECK-NEXT: tile.add %c, %d, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64
// CHECK-NEXT: tile.add %tmp0b, %tmp1b, %out {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64
// SIM: verdict    ok: no races, no deadlock, no sync violations
func.func @computed_shape_e2e(%dst: memref<32x32xf32, "GM">, %a0: memref<32x32xf32, "UB">, %b0: memref<32x32xf32, "UB">, %c0b: memref<32x32xf32, "UB">, %d0: memref<32x32xf32, "UB">, %vrow: index, %vcol: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %row0 = arith.minsi %vrow, %c32 : index
  %col0 = arith.minsi %vcol, %c32 : index
  %row1 = arith.minsi %vrow, %c32 : index
  %col1 = arith.minsi %vcol, %c32 : index
  %row2 = arith.minsi %c32, %vrow : index
  %col2 = arith.minsi %vcol, %c32 : index
  %t0 = memref.alloc() : memref<32x32xf32, "UB">
  %t1 = memref.alloc() : memref<32x32xf32, "UB">
  %o0 = memref.alloc() : memref<32x32xf32, "UB">
  tile.fill %o0 {value = 0.0 : f32} : memref<32x32xf32, "UB">
  %a = tile.view %a0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %b = tile.view %b0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp0 = tile.view %t0[%c0, %c0] valid [%row0, %col0] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %c = tile.view %c0b[%c0, %c0] valid [%row1, %col1] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %d = tile.view %d0[%c0, %c0] valid [%row1, %col1] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp1 = tile.view %t1[%c0, %c0] valid [%row1, %col1] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp0b = tile.view %t0[%c0, %c0] valid [%row2, %col2] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %tmp1b = tile.view %t1[%c0, %c0] valid [%row2, %col2] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %out = tile.view %o0[%c0, %c0] valid [%row2, %col2] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  tile.add %a, %b, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %c, %d, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0b, %tmp1b, %out : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %o0, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}
