// Loops become plain for loops (loop-carried values as variables updated at the end of the
// body), conditionals if/else with their results declared before, index math expressions. A slot
// of an on-chip buffer is a tile placed at the buffer's offset plus k slot sizes (TASSIGN with a
// computed byte offset); a slot or view of a global buffer is a GlobalTensor at the element offset;
// a UB view narrower than its buffer keeps the buffer's row pitch (Cols) with a smaller valid width.
// RUN: %tilesched opt %s -p emit-cpp --target ascend-a2 | %filecheck %s
// CHECK:      // Address plan of loops (bytes; live = op interval):
// CHECK-NEXT: //   UB   [      0,    4096)  %buf  live 4..12
// CHECK:      __global__ AICORE void loops(__gm__ float* x, int64_t n) {
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 4, 16, 32>, pto::Stride<2048, 2048, 512, 32, 1>> x_gm(x);
// CHECK:        pto::Tile<pto::TileType::Vec, float, 32, 32, pto::BLayout::RowMajor, 32, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null> buf;
// CHECK-NEXT:   TASSIGN(buf, 0);
// CHECK-NEXT:   int64_t sum = c0;
// CHECK-NEXT:   for (int64_t i = c0; i < n; i += c1) {
// CHECK-NEXT:     const int64_t k = static_cast<int64_t>(static_cast<uint64_t>(i) % static_cast<uint64_t>(c2));
// CHECK-NEXT:     pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 32, pto::SLayout::NoneBox, 512, pto::PadValue::Null> s;
// CHECK-NEXT:     TASSIGN(s, k * 2048);
// CHECK-NEXT:     pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> src(x + k * 512);
// CHECK-NEXT:     pto::TLOAD(s, src);
// CHECK-NEXT:     pto::Tile<pto::TileType::Vec, float, 16, 32, pto::BLayout::RowMajor, 16, 16, pto::SLayout::NoneBox, 512, pto::PadValue::Null> left;
// CHECK-NEXT:     TASSIGN(left, k * 2048 + c0 * 128 + c0 * 4);
// CHECK-NEXT:     pto::TEXP(left, left);
// CHECK-NEXT:     const int64_t next = sum + i;
// CHECK-NEXT:     sum = next;
// CHECK-NEXT:   }
// CHECK-NEXT:   const bool big = sum > c2;
// CHECK-NEXT:   int64_t picked;
// CHECK-NEXT:   if (big) {
// CHECK-NEXT:     picked = sum;
// CHECK-NEXT:   } else {
// CHECK-NEXT:     picked = c2;
// CHECK-NEXT:   }
func.func @loops(%x: memref<4x16x32xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %buf = memref.alloc() : memref<2x16x32xf32, "UB">
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%sum = %c0) -> (index) {
    %k = arith.remui %i, %c2 : index
    %s = tile.slot %buf[%k] : memref<2x16x32xf32, "UB"> -> memref<16x32xf32, "UB">
    %src = tile.slot %x[%k] : memref<4x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    tile.load %src, %s : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
    %left = tile.view %s[%c0, %c0] {sizes = array<i64: 16, 16>} : memref<16x32xf32, "UB"> -> memref<16x16xf32, "UB">
    tile.exp %left, %left : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    %next = arith.addi %sum, %i : index
    scf.yield %next : index
  }
  %big = arith.cmpi sgt, %acc, %c2 : index
  %picked = scf.if %big -> (index) {
    scf.yield %acc : index
  } else {
    scf.yield %c2 : index
  }
  func.return
}
