// cp.async: a commit closes each run of async copies; each consumer waits with the largest
// correct pending count (the first consumer may leave the second group in flight).
// RUN: %tilesched opt %s -p insert-sync --target cuda-sm80 | %filecheck %s
func.func @groups(%g: memref<64x64xf16, "global">, %o: memref<64x64xf16, "global">) {
  %a = memref.alloc() : memref<64x64xf16, "shared">
  %b = memref.alloc() : memref<64x64xf16, "shared">
  %ra = memref.alloc() : memref<64x64xf16, "local">
  %rb = memref.alloc() : memref<64x64xf16, "local">
  // CHECK:      tile.load %{{.*}}, %[[A:.*]] :
  // CHECK-NEXT: sync.commit_group 0
  // CHECK-NEXT: tile.exp
  // CHECK-NEXT: tile.load %{{.*}}, %[[B:.*]] :
  // CHECK-NEXT: sync.commit_group 0
  // CHECK-NEXT: sync.wait_group 0 {pending = 1 : i64}
  // CHECK-NEXT: tile.copy %[[A]]
  // CHECK-NEXT: sync.wait_group 0 {pending = 0 : i64}
  // CHECK-NEXT: tile.copy %[[B]]
  tile.load %g, %a : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
  tile.exp %rb, %rb : memref<64x64xf16, "local">, memref<64x64xf16, "local">
  tile.load %g, %b : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
  tile.copy %a, %ra : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
  tile.copy %b, %rb : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
  tile.store %rb, %o : memref<64x64xf16, "local">, memref<64x64xf16, "global">
  func.return
}
