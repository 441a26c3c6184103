// A consumer that needs several producers on one unit waits once, for the latest (units are
// in-order queues); an earlier consumer's wait covers later consumers on its unit.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 | %filecheck %s
func.func @latest(%x: memref<32x32xf32, "GM">) {
  %a = memref.alloc() : memref<32x32xf32, "UB">
  %b = memref.alloc() : memref<32x32xf32, "UB">
  %c = memref.alloc() : memref<32x32xf32, "UB">
  // CHECK:      tile.load %{{.*}}, %[[A:.*]] :
  // CHECK-NEXT: tile.load %{{.*}}, %[[B:.*]] :
  // CHECK-NEXT: sync.set_flag "MTE2" -> "V", 0
  // CHECK-NEXT: sync.wait_flag "MTE2" -> "V", 0
  // CHECK-NEXT: tile.add %[[A]], %[[B]]
  // CHECK-NEXT: tile.exp %[[A]]
  // CHECK-NOT:  sync.
  tile.load %x, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.load %x, %b : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.add %a, %b, %c : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %a, %c : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
