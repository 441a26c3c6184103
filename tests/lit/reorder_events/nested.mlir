// Nested bodies are reordered first; the rewrite survives although the outer block (one
// loop) keeps its order. Ten loads then ten vector ops per iteration need ten MTE2 -> V
// flags and a back edge; reordered, loads are grouped so fewer waits cover them.
// RUN: %tilesched opt %s -p reorder-events --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p reorder-events,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// RUN: %tilesched sim %t --target ascend-a2 | %filecheck %s --check-prefix=SIM
// CHECK:      scf.for %i
// CHECK:        tile.load %s0, %u0 :
// CHECK-NEXT:   tile.load %s1, %u1 :
// CHECK-NEXT:   tile.exp %u0, %u0
// CHECK:      }
// CHECK-NEXT: func.return
// SIM: verdict ok
func.func @nested(%x: memref<4x10x16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %k0 = arith.constant 0 : index
  %u0 = memref.alloc() : memref<16x16xf32, "UB">
  %k1 = arith.constant 1 : index
  %u1 = memref.alloc() : memref<16x16xf32, "UB">
  %k2 = arith.constant 2 : index
  %u2 = memref.alloc() : memref<16x16xf32, "UB">
  %k3 = arith.constant 3 : index
  %u3 = memref.alloc() : memref<16x16xf32, "UB">
  %k4 = arith.constant 4 : index
  %u4 = memref.alloc() : memref<16x16xf32, "UB">
  %k5 = arith.constant 5 : index
  %u5 = memref.alloc() : memref<16x16xf32, "UB">
  %k6 = arith.constant 6 : index
  %u6 = memref.alloc() : memref<16x16xf32, "UB">
  %k7 = arith.constant 7 : index
  %u7 = memref.alloc() : memref<16x16xf32, "UB">
  %k8 = arith.constant 8 : index
  %u8 = memref.alloc() : memref<16x16xf32, "UB">
  %k9 = arith.constant 9 : index
  %u9 = memref.alloc() : memref<16x16xf32, "UB">
  scf.for %i = %c0 to %c4 step %c1 {
    %xi = tile.slot %x[%i] : memref<4x10x16x16xf32, "GM"> -> memref<10x16x16xf32, "GM">
    %s0 = tile.slot %xi[%k0] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s1 = tile.slot %xi[%k1] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s2 = tile.slot %xi[%k2] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s3 = tile.slot %xi[%k3] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s4 = tile.slot %xi[%k4] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s5 = tile.slot %xi[%k5] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s6 = tile.slot %xi[%k6] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s7 = tile.slot %xi[%k7] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s8 = tile.slot %xi[%k8] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %s9 = tile.slot %xi[%k9] : memref<10x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    tile.load %s0, %u0 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s1, %u1 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s2, %u2 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s3, %u3 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s4, %u4 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s5, %u5 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s6, %u6 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s7, %u7 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s8, %u8 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.load %s9, %u9 : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.exp %u0, %u0 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u1, %u1 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u2, %u2 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u3, %u3 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u4, %u4 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u5, %u5 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u6, %u6 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u7, %u7 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u8, %u8 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.exp %u9, %u9 : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  }
  func.return
}
