// Scheduling annotations have declared kinds: a stage that is a string is an error, not an op
// silently left unscheduled (issue 11).
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @k(%g: memref<16x16xf32, "GM">, %u: memref<16x16xf32, "UB">) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // CHECK: annotation_types.mlir:[[# @LINE + 1]]:3: error: 'scf.for' attribute 'tile.async_stages' must be a list of stage numbers in 0..1023 ([0 : i64, 1 : i64]), got "all"
  scf.for %i = %c0 to %c2 step %c1 {
    // CHECK: annotation_types.mlir:[[# @LINE + 1]]:5: error: 'tile.load' attribute 'tile.stage' must be an integer in 0..1023 (tile.stage = 0 : i64), got "zero"
    tile.load %g, %u {tile.stage = "zero"} : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    // CHECK: annotation_types.mlir:[[# @LINE + 1]]:5: error: 'tile.exp' attribute 'tile.order' must be a non-negative integer (tile.order = 0 : i64), got -1 : i64
    tile.exp %u, %u {tile.stage = 0 : i64, tile.order = -1 : i64} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    // CHECK: annotation_types.mlir:[[# @LINE + 1]]:5: error: 'tile.copy' attribute 'tile.stage' must be an integer in 0..1023 (tile.stage = 0 : i64), got 1000000 : i64
    tile.copy %u, %u {tile.stage = 1000000 : i64, tile.order = 2 : i64} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    // CHECK: annotation_types.mlir:[[# @LINE + 1]]:5: error: 'tile.store' attribute 'tile.async' must be a unit attribute (written without a value), got 1 : i64
    tile.store %u, %g {tile.async = 1 : i64} : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  } {tile.async_stages = "all"}
  // CHECK: annotation_types.mlir:[[# @LINE + 1]]:3: error: 'tile.relu' attribute 'tile.last_use' has 1 flags but the op has 2 memref operands
  tile.relu %u, %u {tile.last_use = array<i1: false>} : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
