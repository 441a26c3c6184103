// An op the analysis does not know (memref.copy here) is a hard boundary: never fused, nothing
// moved across it, so the chain around it does not fuse; --verbose says why, as a remark.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 --verbose 2> %t.err | %filecheck %s
// RUN: %filecheck %s --check-prefix=REMARK < %t.err
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 2>&1 >/dev/null | %filecheck %s --check-prefix=QUIET --allow-empty
// CHECK-NOT: tile.fusion_group
// REMARK: unknown_op.mlir:[[# @LINE + 9]]:3: remark: fuse-tiles: the analysis does not know 'memref.copy': treated as a hard boundary (unknown effects)
// QUIET-NOT: remark
func.func @unknown(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %u = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  "memref.copy"(%a, %u) : (memref<16x32xf32, "UB">, memref<16x32xf32, "UB">) -> ()
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %c, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
