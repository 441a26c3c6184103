// Tile ops need static shapes (the IR contract), so a dynamic shape never reaches the planner:
// the verifier rejects it with its location before fuse-tiles runs, and nothing is fused.
// (The op-semantics table gives such an op no iteration domain: tests/analysis.)
// RUN: not %tilesched opt %s -p fuse-tiles --target ascend-a2 > %t 2>&1
// RUN: %filecheck %s < %t
// CHECK-NOT: Traceback
// CHECK-NOT: tile.fusion_group
func.func @dynamic(%a: memref<?x32xf32, "UB">, %b: memref<?x32xf32, "UB">) {
  // CHECK: dynamic_shape.mlir:[[# @LINE + 1]]:3: error: 'tile.exp' operands need a static shape
  tile.exp %a, %b : memref<?x32xf32, "UB">, memref<?x32xf32, "UB">
  tile.neg %b, %b : memref<?x32xf32, "UB">, memref<?x32xf32, "UB">
  func.return
}
