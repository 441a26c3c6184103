// A valid region that changes every iteration (rows = the induction variable, 0 in the first):
// the view's tile is declared in the loop body with its run-time valid shape, so each iteration
// computes on its own valid rows; the rest of %b keeps what the fill and earlier iterations wrote.
// (test_run_cpp.py compiles and runs this against PTO-ISA and compares it with the simulator.)
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// CHECK: for (int64_t i = c0; i < c4; i += c1) {
// CHECK: pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, pto::DYNAMIC, pto::DYNAMIC, pto::SLayout::NoneBox, 512, pto::PadValue::Null> va(i, r);
// CHECK: {{\[\[}}pto::last_use(0, 1){{\]\]}} pto::TEXP(vb, va);
// CHECK-NEXT: {{\[\[}}pto::last_use(0, 0){{\]\]}} pto::TNEG(vb, vb);
func.func @k(%x: memref<4x16x32xf32, "GM">, %y: memref<4x16x32xf32, "GM">, %vr: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  tile.fill %b {value = 0.5 : f32} : memref<16x32xf32, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    %xs = tile.slot %x[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    %ys = tile.slot %y[%i] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    %r = arith.minsi %vr, %c32 : index
    %va = tile.view %a[%c0, %c0] valid [%i, %r] {sizes = array<i64: 16, 32>} : memref<16x32xf32, "UB"> -> memref<16x32xf32, "UB">
    %vb = tile.view %b[%c0, %c0] valid [%i, %r] {sizes = array<i64: 16, 32>} : memref<16x32xf32, "UB"> -> memref<16x32xf32, "UB">
    tile.load %xs, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
    tile.exp %va, %vb : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    tile.neg %vb, %vb : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    tile.store %b, %ys : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  }
  func.return
}
