// In-place tile ops (the destination is also the only source) route and verify.
// RUN: %tilesched opt %s -p verify --target ascend-a2 | %filecheck %s
func.func @k(%s: f32) {
  %x = memref.alloc() : memref<16x16xf32, "UB">
  // CHECK: tile.exp %[[X:.*]], %[[X]]
  tile.exp %x, %x : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  // CHECK: tile.muls %[[X]], %{{.*}}, %[[X]]
  tile.muls %x, %s, %x : memref<16x16xf32, "UB">, f32, memref<16x16xf32, "UB">
  func.return
}
