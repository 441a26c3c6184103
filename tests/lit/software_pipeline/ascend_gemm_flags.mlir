// Ascend GEMM (flag target) in three stages: GM->L1 loads, L1->L0 copies, matmul. Every
// buffer between stages gets 2 slots; the kernel is unrolled twice (modulo variable
// expansion) so each slot has constant indices and insert-sync can give each its own event
// ids: the kernel then has back-edge flags but no barrier_all, so the stages overlap. The
// first-iteration `scf.if` is folded away in the prologue and epilogue.
// RUN: %tilesched opt %s -p software-pipeline,insert-sync --target ascend-a2 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target ascend-a2 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target ascend-a2
// SIM: verdict    ok
// CHECK-DAG: memref.alloc() : memref<2x128x64xf16, "L1">
// CHECK-DAG: memref.alloc() : memref<2x64x128xf16, "L1">
// CHECK-DAG: memref.alloc() : memref<2x128x64xf16, "L0A">
// CHECK-DAG: memref.alloc() : memref<2x64x128xf16, "L0B">
// CHECK-DAG: memref.alloc() : memref<128x128xf32, "L0C">
// CHECK:     scf.for %{{.*}} = %c0 to %c6 step %c2 {
// CHECK-NOT:   barrier_all
// CHECK:       tile.slot %{{.*}}[%c0] : memref<2x128x64xf16, "L1">
// CHECK-NOT:   barrier_all
// CHECK:       tile.slot %{{.*}}[%c1] : memref<2x128x64xf16, "L1">
// CHECK-NOT:   barrier_all
// CHECK:     {{^    }$}}
// CHECK-NOT: scf.if
// CHECK:     tile.store
func.func @ascend_gemm(%a: memref<128x512xf16, "GM">, %b: memref<512x128xf16, "GM">, %c: memref<128x128xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a_l1 = memref.alloc() : memref<128x64xf16, "L1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "L1">
  %a_l0 = memref.alloc() : memref<128x64xf16, "L0A">
  %b_l0 = memref.alloc() : memref<64x128xf16, "L0B">
  %acc = memref.alloc() : memref<128x128xf32, "L0C">
  scf.for %kb = %c0 to %c8 step %c1 {
    %koff = arith.muli %kb, %c64 : index
    %a_blk = tile.view %a[%c0, %koff] {sizes = array<i64: 128, 64>} : memref<128x512xf16, "GM"> -> memref<128x64xf16, "GM">
    tile.load %a_blk, %a_l1 {tile.stage = 0, tile.order = 0} : memref<128x64xf16, "GM">, memref<128x64xf16, "L1">
    %b_blk = tile.view %b[%koff, %c0] {sizes = array<i64: 64, 128>} : memref<512x128xf16, "GM"> -> memref<64x128xf16, "GM">
    tile.load %b_blk, %b_l1 {tile.stage = 0, tile.order = 1} : memref<64x128xf16, "GM">, memref<64x128xf16, "L1">
    tile.copy %a_l1, %a_l0 {tile.stage = 1, tile.order = 2} : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
    tile.copy %b_l1, %b_l0 {tile.stage = 1, tile.order = 3} : memref<64x128xf16, "L1">, memref<64x128xf16, "L0B">
    %first = arith.cmpi eq, %kb, %c0 : index
    scf.if %first {
      tile.matmul %a_l0, %b_l0, %acc : memref<128x64xf16, "L0A">, memref<64x128xf16, "L0B">, memref<128x128xf32, "L0C">
    } else {
      tile.matmul %a_l0, %b_l0, %acc {accumulate} : memref<128x64xf16, "L0A">, memref<64x128xf16, "L0B">, memref<128x128xf32, "L0C">
    } {tile.stage = 2, tile.order = 4}
  }
  tile.store %acc, %c : memref<128x128xf32, "L0C">, memref<128x128xf32, "GM">
  func.return
}
