// ascend-a2-mix: an opaque call (on the cube core's scalar issuer) reads what a vector core
// stored. The flag plan would order it with barrier_all, which orders one core only: insert-sync
// refuses, located at the op the barrier would precede, instead of emitting a racy plan.
// RUN: not %tilesched opt %s -p insert-sync --target ascend-a2-mix 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%g: memref<16x16xf32, "GM">, %h: memref<16x16xf32, "GM">) {
  %ub = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %ub : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.store %ub, %h : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  // CHECK: cross_core_barrier_refused.mlir:[[# @LINE + 1]]:3: error: insert-sync needs a barrier_all here (an op on the issuer, or a region it cannot plan flags around), but this function runs ops on cores AIC, AIV0 and a barrier_all orders one core only
  tile.call %h {callee = "f"} : memref<16x16xf32, "GM">
  func.return
}
