// Existing sync ops are hard barriers: the load after the barrier_all could start earlier,
// but nothing moves across it; on each side the order is free.
// RUN: %tilesched opt %s -p reorder-events --target ascend-a2 | %filecheck %s
// CHECK:      tile.load %xa, %a
// CHECK-NEXT: tile.exp %a, %a
// CHECK-NEXT: sync.barrier_all
// CHECK-NEXT: tile.load %xb, %b
func.func @fenced(%xa: memref<64x64xf32, "GM">, %xb: memref<64x64xf32, "GM">) {
  %a = memref.alloc() : memref<64x64xf32, "UB">
  %b = memref.alloc() : memref<64x64xf32, "UB">
  tile.load %xa, %a : memref<64x64xf32, "GM">, memref<64x64xf32, "UB">
  tile.exp %a, %a : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  sync.barrier_all
  tile.load %xb, %b : memref<64x64xf32, "GM">, memref<64x64xf32, "UB">
  tile.exp %b, %b : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  func.return
}
