// Pass options: one pick strategy, the cycles objective, exact mode (CP-SAT) on a small
// segment. Five loads, five vector ops and four ids (ascend-910a): every option finds the
// same fitting order, where one wait for the second load covers the first. A bad strategy
// is a usage error (exit 2).
// RUN: %tilesched opt %s -p "reorder-events{strategy=min-max}" --target ascend-910a | %filecheck %s
// RUN: %tilesched opt %s -p "reorder-events{strategy=min-sum-max objective=cycles}" --target ascend-910a | %filecheck %s
// RUN: %tilesched opt %s -p "reorder-events{exact=true exact-size=8 exact-seconds=5}" --target ascend-910a | %filecheck %s
// RUN: not %tilesched opt %s -p "reorder-events{strategy=fastest}" 2>&1 | %filecheck %s --check-prefix=BAD
// CHECK:      tile.load %x1, %u1
// CHECK-NEXT: tile.exp %u1, %u1
// CHECK-NEXT: tile.exp %u0, %u0
// CHECK-NEXT: tile.load %x2, %u2
// BAD: bad options for pass 'reorder-events': strategy must be one of all, min-max-sum, min-sum-max, min-max, got fastest
func.func @four(%x0: memref<32x32xf32, "GM">, %x1: memref<32x32xf32, "GM">, %x2: memref<32x32xf32, "GM">, %x3: memref<32x32xf32, "GM">, %x4: memref<32x32xf32, "GM">) {
  %u0 = memref.alloc() : memref<32x32xf32, "UB">
  %u1 = memref.alloc() : memref<32x32xf32, "UB">
  %u2 = memref.alloc() : memref<32x32xf32, "UB">
  %u3 = memref.alloc() : memref<32x32xf32, "UB">
  %u4 = memref.alloc() : memref<32x32xf32, "UB">
  tile.load %x0, %u0 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.load %x1, %u1 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.load %x2, %u2 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.load %x3, %u3 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.load %x4, %u4 : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.exp %u0, %u0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %u1, %u1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %u2, %u2 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %u3, %u3 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %u4, %u4 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
