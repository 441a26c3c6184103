// A rolled double-buffered fp16 GEMM K-loop without sync (the figures in docs/insert-sync.md,
// "Rolled loops"): A 128x64 and B 64x256 tiles are prefetched on MTE2 into L1 slot
// (k + 1) mod 2, copied on MTE1 into L0A / L0B slot k mod 2, multiplied on M. insert-sync
// keeps the loop rolled: the prefetch -> copy flags and the slot-free flags (copy -> next
// refill of the L1 slot, matmul -> next copy into the L0 slot, two iterations on) have
// rotating ids; zero-trip, odd and even trip counts simulate ok and are `equiv`.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 > %t.mlir
// RUN: %filecheck %s < %t.mlir
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=3 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --arg n=16 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=3 | %filecheck %s --check-prefix=EQ
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=0 | %filecheck %s --check-prefix=EQ
// SIM: verdict    ok: no races, no deadlock, no sync violations
// EQ: equivalent
// CHECK:      scf.for %k = %c0 to %n step %c1 {
// CHECK:      sync.wait_flag "MTE1" -> "MTE2", %{{[0-9]+}}
// CHECK-NEXT: tile.load %ga, %an
// CHECK:      sync.wait_flag "MTE2" -> "MTE1", %{{[0-9]+}}
// CHECK:      tile.copy %ac, %a0
// CHECK:      sync.wait_flag "M" -> "MTE1", %{{[0-9]+}}
// CHECK:      tile.matmul %a0, %b0, %acc
// CHECK:      }
// CHECK-NOT:  scf.for
// CHECK-NOT:  sync.barrier_all
func.func @gemm_rolled(%a: memref<128x4224xf16, "GM">, %b: memref<4224x256xf16, "GM">, %c: memref<128x256xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %a_l1 = memref.alloc() : memref<2x128x64xf16, "L1">
  %b_l1 = memref.alloc() : memref<2x64x256xf16, "L1">
  %a_l0 = memref.alloc() : memref<2x128x64xf16, "L0A">
  %b_l0 = memref.alloc() : memref<2x64x256xf16, "L0B">
  %acc = memref.alloc() : memref<128x256xf32, "L0C">
  %pa = tile.slot %a_l1[%c0] : memref<2x128x64xf16, "L1"> -> memref<128x64xf16, "L1">
  %pb = tile.slot %b_l1[%c0] : memref<2x64x256xf16, "L1"> -> memref<64x256xf16, "L1">
  %ga0 = tile.view %a[%c0, %c0] {sizes = array<i64: 128, 64>} : memref<128x4224xf16, "GM"> -> memref<128x64xf16, "GM">
  %gb0 = tile.view %b[%c0, %c0] {sizes = array<i64: 64, 256>} : memref<4224x256xf16, "GM"> -> memref<64x256xf16, "GM">
  tile.load %ga0, %pa : memref<128x64xf16, "GM">, memref<128x64xf16, "L1">
  tile.load %gb0, %pb : memref<64x256xf16, "GM">, memref<64x256xf16, "L1">
  scf.for %k = %c0 to %n step %c1 {
    %k1 = arith.addi %k, %c1 : index
    %s1 = arith.remui %k1, %c2 : index
    %s0 = arith.remui %k, %c2 : index
    %koff = arith.muli %k1, %c64 : index
    %an = tile.slot %a_l1[%s1] : memref<2x128x64xf16, "L1"> -> memref<128x64xf16, "L1">
    %bn = tile.slot %b_l1[%s1] : memref<2x64x256xf16, "L1"> -> memref<64x256xf16, "L1">
    %ga = tile.view %a[%c0, %koff] {sizes = array<i64: 128, 64>} : memref<128x4224xf16, "GM"> -> memref<128x64xf16, "GM">
    %gb = tile.view %b[%koff, %c0] {sizes = array<i64: 64, 256>} : memref<4224x256xf16, "GM"> -> memref<64x256xf16, "GM">
    tile.load %ga, %an : memref<128x64xf16, "GM">, memref<128x64xf16, "L1">
    tile.load %gb, %bn : memref<64x256xf16, "GM">, memref<64x256xf16, "L1">
    %ac = tile.slot %a_l1[%s0] : memref<2x128x64xf16, "L1"> -> memref<128x64xf16, "L1">
    %bc = tile.slot %b_l1[%s0] : memref<2x64x256xf16, "L1"> -> memref<64x256xf16, "L1">
    %a0 = tile.slot %a_l0[%s0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
    %b0 = tile.slot %b_l0[%s0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
    tile.copy %ac, %a0 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
    tile.copy %bc, %b0 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
    tile.matmul %a0, %b0, %acc {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
  }
  tile.store %acc, %c : memref<128x256xf32, "L0C">, memref<128x256xf32, "GM">
  func.return
}
