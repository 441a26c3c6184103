// Issue 11 §0: the attention kernel without its scaling op. %t_r now carries its value from
// one iteration to the next, and tile.rowexpand_sub reads and writes it in place, so the
// loop-carried WAR from tile.exp (iteration i) to tile.rowexpand_sub (iteration i+1) must stay
// at distance 1: %t_r cannot be multi-buffered. The pipeline is accepted (exit 0), every
// rowexpand_sub follows the previous iteration's exp, and the result is race-free and
// equivalent to the kernel as written.
// RUN: %tilesched opt %s -p modulo-schedule,software-pipeline,insert-sync --target cuda-sm80 -o %t.mlir
// RUN: %filecheck %s < %t.mlir
// RUN: %tilesched sim %t.mlir --target cuda-sm80
// RUN: %tilesched equiv %s %t.mlir --target cuda-sm80 | %filecheck %s --check-prefix=EQUIV
// CHECK:      tile.rowexpand_sub %t_r, %row_max, %t_r
// CHECK-NOT:  tile.rowexpand_sub
// CHECK:      tile.exp %t_r
// CHECK:      tile.rowexpand_sub %t_r, %row_max, %t_r
// CHECK-NOT:  tile.rowexpand_sub
// CHECK:      tile.exp %t_r
// CHECK:      tile.rowexpand_sub %t_r, %row_max, %t_r
// CHECK-NOT:  tile.rowexpand_sub
// CHECK:      tile.exp %t_r
// CHECK:      tile.rowexpand_sub %t_r, %row_max, %t_r
// CHECK-NOT:  tile.rowexpand_sub
// CHECK:      tile.exp %t_r
// EQUIV:      equivalent
builtin.module {
  func.func @cuda_attention(%q: memref<256x64xf16, "global">, %kt: memref<64x128xf16, "global">, %v: memref<128x64xf16, "global">, %o: memref<256x64xf32, "global">) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cst = arith.constant 1.250000e-01 : f32
    %kt_s = memref.alloc() : memref<64x128xf16, "shared">
    %kt_r = memref.alloc() : memref<64x128xf16, "local">
    %v_s = memref.alloc() : memref<128x64xf16, "shared">
    %v_r = memref.alloc() : memref<128x64xf16, "local">
    tile.load %kt, %kt_s : memref<64x128xf16, "global">, memref<64x128xf16, "shared">
    tile.load %v, %v_s : memref<128x64xf16, "global">, memref<128x64xf16, "shared">
    tile.copy %kt_s, %kt_r : memref<64x128xf16, "shared">, memref<64x128xf16, "local">
    tile.copy %v_s, %v_r : memref<128x64xf16, "shared">, memref<128x64xf16, "local">
    %q_s = memref.alloc() : memref<64x64xf16, "shared">
    %q_r = memref.alloc() : memref<64x64xf16, "local">
    %s_r = memref.alloc() : memref<64x128xf32, "local">
    %t_r = memref.alloc() : memref<64x128xf32, "local">
    %row_max = memref.alloc() : memref<64x1xf32, "local">
    %row_sum = memref.alloc() : memref<64x1xf32, "local">
    %p_r = memref.alloc() : memref<64x128xf16, "local">
    %o_r = memref.alloc() : memref<64x64xf32, "local">
    scf.for %qb = %c0 to %c4 step %c1 {
      %row = arith.muli %qb, %c64 : index
      %q_blk = tile.view %q[%row, %c0] {sizes = array<i64: 64, 64>} : memref<256x64xf16, "global"> -> memref<64x64xf16, "global">
      tile.load %q_blk, %q_s : memref<64x64xf16, "global">, memref<64x64xf16, "shared">
      tile.copy %q_s, %q_r : memref<64x64xf16, "shared">, memref<64x64xf16, "local">
      tile.matmul %q_r, %kt_r, %s_r : memref<64x64xf16, "local">, memref<64x128xf16, "local">, memref<64x128xf32, "local">
      tile.rowmax %t_r, %row_max : memref<64x128xf32, "local">, memref<64x1xf32, "local">
      tile.rowexpand_sub %t_r, %row_max, %t_r : memref<64x128xf32, "local">, memref<64x1xf32, "local">, memref<64x128xf32, "local">
      tile.exp %t_r, %s_r : memref<64x128xf32, "local">, memref<64x128xf32, "local">
      tile.rowsum %s_r, %row_sum : memref<64x128xf32, "local">, memref<64x1xf32, "local">
      tile.rowexpand_div %s_r, %row_sum, %s_r : memref<64x128xf32, "local">, memref<64x1xf32, "local">, memref<64x128xf32, "local">
      tile.cast %s_r, %p_r : memref<64x128xf32, "local">, memref<64x128xf16, "local">
      tile.matmul %p_r, %v_r, %o_r : memref<64x128xf16, "local">, memref<128x64xf16, "local">, memref<64x64xf32, "local">
      %o_blk = tile.view %o[%row, %c0] {sizes = array<i64: 64, 64>} : memref<256x64xf32, "global"> -> memref<64x64xf32, "global">
      tile.store %o_r, %o_blk : memref<64x64xf32, "local">, memref<64x64xf32, "global">
    }
    func.return
  }
}
