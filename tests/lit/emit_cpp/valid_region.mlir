// Tiles with a static storage shape and a run-time valid region (PTOAS's
// !pto.tile_buf<vec, 32x32xf32, valid=?x?>, test/lit/tile_fusion/fusion_reduce_computed_dynamic_shape_e2e.pto:
// tadd/tmul/trowsum over minsi(%vrow, 32) x minsi(%vcol, 32)): emit-cpp prints a UB view with
// `valid` as a Vec tile with pto::DYNAMIC valid row/col given to its constructor (a constant
// extent stays static), and a global view with `valid` as a GlobalTensor of run-time Shape, so
// TLOAD/TSTORE move the valid region. The exp/muls/rowsum chain is one group. (run-cpp compiles
// this against PTO-ISA and matches the numpy semantics: tests/emit/test_run_cpp.py.)
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// CHECK: pto::GlobalTensor<float, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>, pto::Stride<1024, 1024, 1024, 32, 1>> xv(x + {{.*}}, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>(1, 1, 1, row, col));
// CHECK: pto::GlobalTensor<float, pto::Shape<1, 1, 1, pto::DYNAMIC, 1>, {{.*}}, pto::Layout::DN> sv({{.*}}(1, 1, 1, row, 1));
// CHECK: pto::Tile<pto::TileType::Vec, float, 32, 32, pto::BLayout::RowMajor, pto::DYNAMIC, pto::DYNAMIC, pto::SLayout::NoneBox, 512, pto::PadValue::Null> a(row, col);
// CHECK: pto::Tile<pto::TileType::Vec, float, 32, 1, pto::BLayout::ColMajor, pto::DYNAMIC, 1, pto::SLayout::NoneBox, 512, pto::PadValue::Null> r(row);
// CHECK: pto::TLOAD(a, xv);
// CHECK: {{\[\[}}pto::last_use(0, 1){{\]\]}} pto::TEXP(b, a);
// CHECK-NEXT: {{\[\[}}pto::last_use(0, 0){{\]\]}} pto::TMULS(b, b, vrow);
// CHECK-NEXT: {{\[\[}}pto::last_use(0, 0, 0){{\]\]}} pto::TROWSUM(r, b, tmp);
// CHECK: pto::TSTORE(yv, b);
func.func @valid_chain(%x: memref<32x32xf32, "GM">, %y: memref<32x32xf32, "GM">, %s: memref<32x1xf32, "GM">, %vrow: index, %vcol: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %row = arith.minsi %vrow, %c32 : index
  %col = arith.minsi %vcol, %c32 : index
  %a0 = memref.alloc() : memref<32x32xf32, "UB">
  %b0 = memref.alloc() : memref<32x32xf32, "UB">
  %r0 = memref.alloc() : memref<32x1xf32, "UB">
  %xv = tile.view %x[%c0, %c0] valid [%row, %col] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "GM"> -> memref<32x32xf32, "GM">
  %yv = tile.view %y[%c0, %c0] valid [%row, %col] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "GM"> -> memref<32x32xf32, "GM">
  %sv = tile.view %s[%c0, %c0] valid [%row, %c1] {sizes = array<i64: 32, 1>} : memref<32x1xf32, "GM"> -> memref<32x1xf32, "GM">
  %a = tile.view %a0[%c0, %c0] valid [%row, %col] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %b = tile.view %b0[%c0, %c0] valid [%row, %col] {sizes = array<i64: 32, 32>} : memref<32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  %r = tile.view %r0[%c0, %c0] valid [%row, %c1] {sizes = array<i64: 32, 1>} : memref<32x1xf32, "UB"> -> memref<32x1xf32, "UB">
  tile.load %xv, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.exp %a, %b : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.muls %b, %vrow, %b : memref<32x32xf32, "UB">, index, memref<32x32xf32, "UB">
  tile.rowsum %b, %r : memref<32x32xf32, "UB">, memref<32x1xf32, "UB">
  tile.store %b, %yv : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  tile.store %r, %sv : memref<32x1xf32, "UB">, memref<32x1xf32, "GM">
  func.return
}
