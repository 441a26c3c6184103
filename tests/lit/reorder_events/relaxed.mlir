// Six loads forced in order on MTE2 (each overwrites rows of the one before), six vector ops
// forced in order on V (an accumulator), each reading rows only its own load wrote: every
// order needs six MTE2 -> V flags and nothing leads from V back to MTE2, so no id is ever
// free again. ascend-910a has four: strict mode fails, the pass says so with a warning
// and keeps the fastest order; insert-sync then falls back to barrier_all, still correct.
// RUN: %tilesched opt %s -p reorder-events --target ascend-910a 2> %t.err > %t.mlir
// RUN: %filecheck %s < %t.err
// RUN: %tilesched opt %s -p reorder-events,insert-sync --target ascend-910a > %t.sync
// RUN: %tilesched sim %t.sync --target ascend-910a | %filecheck %s --check-prefix=SIM
// RUN: %tilesched opt %s -p reorder-events --target ascend-a2 2>&1 | %filecheck %s --check-prefix=A2
// CHECK: relaxed.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: reorder-events: no order found that keeps the flags of MTE2->V within 4 event ids
// SIM: verdict ok
// A2-NOT: warning
func.func @k(%x: memref<104x16xf32, "GM">, %y: memref<16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %big = memref.alloc() : memref<104x16xf32, "UB">
  %acc = memref.alloc() : memref<16x16xf32, "UB">
  %r0 = arith.constant 0 : index
  %g0 = tile.view %x[%r0, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w0 = tile.view %big[%r0, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g0, %w0 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h0 = tile.view %big[%r0, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h0, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  %r1 = arith.constant 16 : index
  %g1 = tile.view %x[%r1, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w1 = tile.view %big[%r1, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g1, %w1 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h1 = tile.view %big[%r1, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h1, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  %r2 = arith.constant 32 : index
  %g2 = tile.view %x[%r2, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w2 = tile.view %big[%r2, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g2, %w2 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h2 = tile.view %big[%r2, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h2, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  %r3 = arith.constant 48 : index
  %g3 = tile.view %x[%r3, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w3 = tile.view %big[%r3, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g3, %w3 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h3 = tile.view %big[%r3, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h3, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  %r4 = arith.constant 64 : index
  %g4 = tile.view %x[%r4, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w4 = tile.view %big[%r4, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g4, %w4 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h4 = tile.view %big[%r4, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h4, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  %r5 = arith.constant 80 : index
  %g5 = tile.view %x[%r5, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "GM"> -> memref<24x16xf32, "GM">
  %w5 = tile.view %big[%r5, %c0] {sizes = array<i64: 24, 16>} : memref<104x16xf32, "UB"> -> memref<24x16xf32, "UB">
  tile.load %g5, %w5 : memref<24x16xf32, "GM">, memref<24x16xf32, "UB">
  %h5 = tile.view %big[%r5, %c0] {sizes = array<i64: 16, 16>} : memref<104x16xf32, "UB"> -> memref<16x16xf32, "UB">
  tile.add %h5, %acc, %acc : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  tile.store %acc, %y : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  func.return
}
