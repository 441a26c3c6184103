// Hand-written fusion annotations that are malformed or contradict the contract are rejected
// with their location (exit 2): a group on a load, an order repeated in a group, an order
// without a group, a last-use flag set on the written operand, members of different iteration
// domains. (Annotations of the wrong kind or length are the verifier's: tests/lit/verify.)
// RUN: not %tilesched opt %s -p fuse-tiles --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched opt %s -p emit-cpp --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
func.func @bad(%x: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %r = memref.alloc() : memref<16x1xf32, "UB">
  // CHECK: bad_annotations.mlir:[[# @LINE + 1]]:3: error: 'tile.load' cannot be in a fusion group: only vector compute ops are fused
  tile.load %x, %a {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64} : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  // CHECK: bad_annotations.mlir:[[# @LINE + 1]]:3: error: fusion group 1 has tile.fusion_order 0 twice
  tile.neg %b, %b {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  // CHECK: bad_annotations.mlir:[[# @LINE + 1]]:3: error: 'tile.fusion_order' on 'tile.abs' without 'tile.fusion_group'
  tile.abs %b, %b {tile.fusion_order = 3 : i64} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %b, %a {tile.fusion_group = 2 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  // CHECK: bad_annotations.mlir:[[# @LINE + 1]]:3: error: 'tile.last_use' of the written (last) operand must be false
  tile.relu %a, %b {tile.fusion_group = 2 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true>} : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  // CHECK: bad_annotations.mlir:[[# @LINE + 1]]:3: error: fusion group 1 mixes iteration domains: 'tile.fill' iterates over 16x1, 'tile.exp' over 16x32
  tile.fill %r {value = 0.0 : f32, tile.fusion_group = 1 : i64, tile.fusion_order = 5 : i64} : memref<16x1xf32, "UB">
  func.return
}
