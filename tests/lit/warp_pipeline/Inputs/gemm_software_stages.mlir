// The single-buffered GEMM with software-pipeline stages (tile.stage / tile.order) on its ops
// *and* on its warp-pipeline borders, so the borders move with the ops: software-pipeline
// double-buffers the LDS tiles (prefetch of block k+1 in the kernel's first warp stage), then
// warp-pipeline pipelines the kernel loop and the epilogue (joined back to back).
builtin.module {
  func.func @amd_gemm(%a: memref<128x256xf16, "global">, %b: memref<256x128xf16, "global">, %c: memref<128x128xf32, "global">) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a_lds = memref.alloc() : memref<128x32xf16, "LDS">
    %b_lds = memref.alloc() : memref<32x128xf16, "LDS">
    %a_r = memref.alloc() : memref<128x32xf16, "local">
    %b_r = memref.alloc() : memref<32x128xf16, "local">
    %acc = memref.alloc() : memref<128x128xf32, "local">
    tile.fill %acc {value = 0.000000e+00 : f32} : memref<128x128xf32, "local">
    scf.for %kb = %c0 to %c8 step %c1 {
      %koff = arith.muli %kb, %c32 : index
      %a_blk = tile.view %a[%c0, %koff] {sizes = array<i64: 128, 32>} : memref<128x256xf16, "global"> -> memref<128x32xf16, "global">
      tile.load %a_blk, %a_lds {tile.stage = 0 : i64, tile.order = 0 : i64} : memref<128x32xf16, "global">, memref<128x32xf16, "LDS">
      %b_blk = tile.view %b[%koff, %c0] {sizes = array<i64: 32, 128>} : memref<256x128xf16, "global"> -> memref<32x128xf16, "global">
      tile.load %b_blk, %b_lds {tile.stage = 0 : i64, tile.order = 1 : i64} : memref<32x128xf16, "global">, memref<32x128xf16, "LDS">
      tile.stage_border "global_to_lds" {priority = 0 : i64, tile.stage = 0 : i64, tile.order = 2 : i64}
      tile.copy %a_lds, %a_r {tile.stage = 1 : i64, tile.order = 3 : i64} : memref<128x32xf16, "LDS">, memref<128x32xf16, "local">
      tile.copy %b_lds, %b_r {tile.stage = 1 : i64, tile.order = 4 : i64} : memref<32x128xf16, "LDS">, memref<32x128xf16, "local">
      tile.stage_border "lds_to_regs" {priority = 0 : i64, tile.stage = 1 : i64, tile.order = 5 : i64}
      tile.matmul %a_r, %b_r, %acc {accumulate, tile.stage = 1 : i64, tile.order = 6 : i64} : memref<128x32xf16, "local">, memref<32x128xf16, "local">, memref<128x128xf32, "local">
      tile.stage_border "mfma" {priority = 1 : i64, tile.stage = 1 : i64, tile.order = 7 : i64}
    }
    tile.store %acc, %c : memref<128x128xf32, "local">, memref<128x128xf32, "global">
    func.return
  }
}
