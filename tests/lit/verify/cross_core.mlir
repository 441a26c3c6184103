// Split-core targets: unknown cores, ids at or over the vendor's 16 FFTS flag ids, a set on a unit
// the core lacks, a flag joining two cores, ops whose spaces belong to different cores or to
// another core than their annotation - each reported at its line. On a target without cores the
// cross-core ops are refused (a tile.core annotation is ignored there: the kernel stays portable).
// RUN: not %tilesched opt %s -p verify --target ascend-a2-mix 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s --check-prefix=NOCORES
func.func @f(%i: index, %g: memref<16x16xf16, "GM">) {
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %ub = memref.alloc() : memref<16x16xf16, "UB">
  %l1 = memref.alloc() : memref<16x16xf16, "L1">
  // NOCORES: cross_core.mlir:[[# @LINE + 2]]:3: error: 'sync.cross_set' is cross-core synchronization, but target 'ascend-a2' has no cores (use a split-core target such as ascend-a2-mix)
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'sync.cross_set' dst "AIV2" is not a core of target 'ascend-a2-mix'; cores: AIC, AIV0, AIV1
  sync.cross_set "AIC" -> "AIV2", 3 after "FIX"
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'sync.cross_wait' id 16 is out of range: target 'ascend-a2-mix' has 16 cross-core flag ids (0..15)
  sync.cross_wait "AIC" -> "AIV0", 16
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'sync.cross_set' unit "M" is not a queued unit of core AIV0; units: MTE2, V, MTE3
  sync.cross_set "AIV0" -> "AIC", 1 after "M"
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'sync.set_flag' joins units of two cores (AIC.FIX -> AIV0.MTE2); cores synchronize with sync.cross_set / cross_wait
  sync.set_flag "AIC.FIX" -> "AIV0.MTE2", 0
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'tile.load' core "AIC" does not own space "UB"
  tile.load %g, %ub {tile.core = "AIC"} : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'tile.copy' touches spaces of different cores: "L1" (AIC), "UB" (AIV0/AIV1); cores exchange data through global memory
  tile.copy %l1, %ub : memref<16x16xf16, "L1">, memref<16x16xf16, "UB">
  tile.load %g, %ub {tile.core = "AIV1"} : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
  %r = arith.remui %i, %c2 : index
  %ok = arith.addi %r, %c15 : index
  // CHECK: cross_core.mlir:[[# @LINE + 1]]:3: error: 'sync.cross_set' event id %ok can be 16 (it takes 15..16), but target 'ascend-a2-mix' has 16 cross-core flag ids
  sync.cross_set "AIC" -> "AIV1", %ok after "FIX"
  // NOCORES-NOT: tile.core
  func.return
}
