// An opaque call runs inline on the scalar issuer: it waits for queued work with barrier_all.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
func.func @call(%x: memref<32x32xf32, "GM">) {
  %a = memref.alloc() : memref<32x32xf32, "UB">
  // CHECK:      tile.load
  // CHECK-NEXT: sync.barrier_all
  // CHECK-NEXT: tile.call
  tile.load %x, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.call %a {callee = "host_fn"} : memref<32x32xf32, "UB">
  func.return
}
