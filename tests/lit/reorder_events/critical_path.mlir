// Speed among orders that fit: the load that starts the long vector chain is issued first
// (critical path), the load whose data only goes back to memory waits; no flags change.
// RUN: %tilesched opt %s -p reorder-events --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p reorder-events,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK:      tile.load %xa, %a
// CHECK:      tile.load %xb, %b
// CHECK:      tile.store %b, %z
// CHECK:      tile.store %a, %y
func.func @chains(%xa: memref<64x64xf32, "GM">, %xb: memref<64x64xf32, "GM">, %y: memref<64x64xf32, "GM">, %z: memref<64x64xf32, "GM">) {
  %a = memref.alloc() : memref<64x64xf32, "UB">
  %b = memref.alloc() : memref<64x64xf32, "UB">
  tile.load %xb, %b : memref<64x64xf32, "GM">, memref<64x64xf32, "UB">
  tile.load %xa, %a : memref<64x64xf32, "GM">, memref<64x64xf32, "UB">
  tile.exp %a, %a : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.exp %a, %a : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.exp %a, %a : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.exp %a, %a : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.store %a, %y : memref<64x64xf32, "UB">, memref<64x64xf32, "GM">
  tile.store %b, %z : memref<64x64xf32, "UB">, memref<64x64xf32, "GM">
  func.return
}
