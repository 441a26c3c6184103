// A kernel's on-chip (UB) argument: the host passes global memory only, so the kernel takes a
// global buffer NAME_home in its place and stages the tile through it, TLOAD before the body and
// TSTORE after it, each fenced by pipe_barrier(PIPE_ALL); the tile is placed by the address plan
// and lives for the whole kernel. (tilesched's semantics give the argument its contents in and
// out, which the staging reproduces; run-cpp compares it like any global buffer.) An R x 1
// column argument is staged as a DN tile. A kernel entry's ({tile.kernel}) on-chip arguments do
// not outlive it and their last reads carry last_use flags: @entry loads them and never stores
// them back (run-cpp does not compare them). test_run_cpp.py compiles and runs both kernels.
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s --check-prefix=ENTRY
// CHECK:      //   UB   [      0,    2048)  %src  live 0..{{[0-9]+}}
// CHECK:      __global__ AICORE void k(__gm__ float* out, __gm__ float* src_home, __gm__ float* row_home) {
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> out_gm(out);
// CHECK-NEXT:   // %src is an on-chip (UB) argument, staged through src_home in global memory
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>> src_gm(src_home);
// CHECK-NEXT:   pto::Tile<pto::TileType::Vec, float, 16, 32, {{.*}}> src;
// CHECK-NEXT:   TASSIGN(src, 0);
// CHECK-NEXT:   // %row is an on-chip (UB) argument, staged through row_home in global memory
// CHECK-NEXT:   pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 1>, pto::Stride<16, 16, 16, 1, 1>, pto::Layout::DN> row_gm(row_home);
// CHECK-NEXT:   pto::Tile<pto::TileType::Vec, float, 16, 1, pto::BLayout::ColMajor, {{.*}}> row;
// CHECK-NEXT:   TASSIGN(row, {{[0-9]+}});
// CHECK-NEXT:   pto::TLOAD(src, src_gm);
// CHECK-NEXT:   pto::TLOAD(row, row_gm);
// CHECK-NEXT:   pipe_barrier(PIPE_ALL);  // the staged arguments are loaded
// CHECK:        pto::TSTORE(out_gm, t);
// CHECK-NEXT:   pipe_barrier(PIPE_ALL);  // every unit is done with the staged arguments
// CHECK-NEXT:   pto::TSTORE(src_gm, src);
// CHECK-NEXT:   pto::TSTORE(row_gm, row);
// CHECK-NEXT: }
func.func @k(%out: memref<16x32xf32, "GM">, %src: memref<16x32xf32, "UB">, %row: memref<16x1xf32, "UB">) {
  %t = memref.alloc() : memref<16x32xf32, "UB">
  tile.exp %src, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.rowexpand_sub %t, %row, %t : memref<16x32xf32, "UB">, memref<16x1xf32, "UB">, memref<16x32xf32, "UB">
  tile.rowmax %src, %row : memref<16x32xf32, "UB">, memref<16x1xf32, "UB">
  tile.store %t, %out : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
// ENTRY:      __global__ AICORE void entry(__gm__ float* out, __gm__ float* src_home) {
// ENTRY:        // %src is an on-chip (UB) argument, loaded from src_home in global memory
// ENTRY:        pto::TLOAD(src, src_gm);
// ENTRY-NEXT:   pipe_barrier(PIPE_ALL);  // the staged arguments are loaded
// ENTRY:        {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(t, src, src);
// ENTRY-NOT:    TSTORE(src_gm
// ENTRY:        pto::TSTORE(out_gm, t);
// ENTRY-NOT:    TSTORE(src_gm
// ENTRY:      }
func.func @entry(%out: memref<16x32xf32, "GM">, %src: memref<16x32xf32, "UB">) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x32xf32, "UB">
  tile.add %src, %src, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %t, %out : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
