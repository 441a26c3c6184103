// Rolled ping/pong: the loop prefetches tile i+1 into slot (i + 1) mod 2 of %ub while V
// consumes slot i mod 2. The load -> exp dependence is carried to the next iteration, so
// its flag has a rotating event id, an index operand base + (i + c) mod 2: set after the
// prefetch with the id of iteration i, waited before exp in iteration i + 1 (the consumer
// no longer waits for this iteration's prefetch). The back-edge flags (exp -> next load,
// store -> next exp) rotate too, so a set never comes before its previous wait. Presets
// use the id of iteration -1 (from the lower bound), drains the id of the last iteration
// (from lb + max(ub - lb, 0)), so zero-trip and short loops balance (RUN lines: n = 0, 1,
// 2, 5). insert-sync{rolled=false} keeps constant ids (the consumer waits in-iteration).
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p "insert-sync{rolled=false}" --target ascend-a2 | %filecheck %s --check-prefix=CONST
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 > %t.mlir
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=0 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=1 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=2 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --full --arg n=5 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched sim %t.mlir --target ascend-a2 --arg n=33 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=5 | %filecheck %s --check-prefix=EQ
// RUN: %tilesched equiv %s %t.mlir --target ascend-a2 --arg n=0 | %filecheck %s --check-prefix=EQ
// SIM: verdict    ok: no races, no deadlock, no sync violations
// EQ: equivalent
// CONST-NOT: sync.{{(set|wait)}}_flag {{.*}}, %
// CHECK:      %[[START:[0-9]+]] = arith.addi %c0, %{{[0-9]+}} : index
// CHECK:      arith.remui %[[START]], %{{[0-9]+}} : index
// CHECK:      sync.set_flag "MTE2" -> "V", %{{[0-9]+}}
// CHECK:      scf.for %i = %c0 to %n step %c1 {
// CHECK:      %[[NEXT:[0-9]+]] = arith.addi %i, %{{[0-9]+}} : index
// CHECK-NEXT: %{{[0-9]+}} = arith.constant 2 : index
// CHECK-NEXT: %{{[0-9]+}} = arith.remui %[[NEXT]], %{{[0-9]+}} : index
// CHECK:      %{{[0-9]+}} = arith.remui %i, %{{[0-9]+}} : index
// CHECK:      tile.load %xn, %un
// CHECK-NEXT: sync.set_flag "MTE2" -> "V", %{{[0-9]+}}
// CHECK:      sync.wait_flag "MTE2" -> "V", %{{[0-9]+}}
// CHECK-NEXT: tile.exp %uc, %wc
// CHECK:      }
// CHECK:      arith.maxsi
// CHECK:      sync.wait_flag "MTE2" -> "V", %{{[0-9]+}}
// CHECK:      func.return
func.func @rolled(%x: memref<64x32x32xf32, "GM">, %y: memref<64x32x32xf32, "GM">, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ub = memref.alloc() : memref<2x32x32xf32, "UB">
  %w = memref.alloc() : memref<2x32x32xf32, "UB">
  %x0 = tile.slot %x[%c0] : memref<64x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
  %u0 = tile.slot %ub[%c0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
  tile.load %x0, %u0 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  scf.for %i = %c0 to %n step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %s1 = arith.remui %i1, %c2 : index
    %s0 = arith.remui %i, %c2 : index
    %xn = tile.slot %x[%i1] : memref<64x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    %un = tile.slot %ub[%s1] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %uc = tile.slot %ub[%s0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %wc = tile.slot %w[%s0] : memref<2x32x32xf32, "UB"> -> memref<32x32xf32, "UB">
    %yc = tile.slot %y[%i] : memref<64x32x32xf32, "GM"> -> memref<32x32xf32, "GM">
    tile.load %xn, %un : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
    tile.exp %uc, %wc : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
    tile.store %wc, %yc : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  }
  func.return
}
