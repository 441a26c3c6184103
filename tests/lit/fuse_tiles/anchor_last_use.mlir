// PTOAS test/lit/tile_fusion: mark_last_use_repeated_ssa_level2.pto,
// mark_last_use_post_span_block_level2.pto, final_emitc_last_use_level2.pto. Their on-chip
// tile arguments are the kernel's own: in tilesched a function marked {tile.kernel} is a kernel
// entry (docs/ir.md), so its on-chip memref arguments are last-used like allocations and the
// flags match PTOAS's (IR order: inputs, then the written operand; emit-cpp prints the
// destination first: [[pto::last_use(0, 1, 1)]] TADD(dst, a, b), PTOAS's CPP lines). Without
// the attribute an argument may be read after the call, so it is never a last use.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2 --function mark_last_use_repeated_ssa_level2
// RUN: %tilesched equiv %s %t --target ascend-a2 --function mark_last_use_post_span_block_level2
// RUN: %tilesched equiv %s %t --target ascend-a2 --function final_emitc_last_use_level2
// emit-cpp prints __global__ kernels over __gm__ pointers (the PTO-ISA API): a kernel entry's UB
// arguments are loaded from global buffers of their own at entry (never stored back: they do not
// outlive the kernel), and the flags come out as PTOAS's CPP lines have them.
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s --check-prefix=CPP

// CHECK-LABEL: func.func @mark_last_use_repeated_ssa_level2
// CHECK:      tile.add %src, %src, %tmp {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.add %tmp, %tmp, %out {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true, false>}
func.func @mark_last_use_repeated_ssa_level2(%dst: memref<32x32xf32, "GM">, %src: memref<32x32xf32, "UB">) attributes {tile.kernel} {
  %tmp = memref.alloc() : memref<32x32xf32, "UB">
  %out = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %src, %src, %tmp : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp, %tmp, %out : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %out, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}

// CHECK-LABEL: func.func @mark_last_use_post_span_block_level2
// CHECK:      tile.add %src0, %src1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.add %tmp0, %src2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: false, true, false>}
// CHECK-NEXT: tile.store %tmp1, %dst0
// CHECK-NEXT: tile.store %tmp0, %dst1
func.func @mark_last_use_post_span_block_level2(%dst0: memref<32x32xf32, "GM">, %dst1: memref<32x32xf32, "GM">, %src0: memref<32x32xf32, "UB">, %src1: memref<32x32xf32, "UB">, %src2: memref<32x32xf32, "UB">) attributes {tile.kernel} {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %src0, %src1, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0, %src2, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %tmp1, %dst0 : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  tile.store %tmp0, %dst1 : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}

// CHECK-LABEL: func.func @final_emitc_last_use_level2
// CHECK:      tile.add %src0, %src1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, true, false>}
// CHECK-NEXT: tile.add %tmp0, %src2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, true, false>}
// CPP:      __global__ AICORE void mark_last_use_repeated_ssa_level2(__gm__ float* dst, __gm__ float* src_home) {
// CPP:        {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(tmp, src, src);
// CPP-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(out, tmp, tmp);
// CPP:      __global__ AICORE void mark_last_use_post_span_block_level2(
// CPP:        {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(tmp0, src0, src1);
// CPP-NEXT:   {{\[\[}}pto::last_use(0, 0, 1)]] pto::TADD(tmp1, tmp0, src2);
// CPP:      __global__ AICORE void final_emitc_last_use_level2(
// CPP:        {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(tmp0, src0, src1);
// CPP-NEXT:   {{\[\[}}pto::last_use(0, 1, 1)]] pto::TADD(tmp1, tmp0, src2);
// CPP:      __global__ AICORE void not_an_entry(
// CPP:        {{\[\[}}pto::last_use(0, 0, 0)]] pto::TADD(tmp0, src0, src1);
// CPP-NEXT:   {{\[\[}}pto::last_use(0, 1, 0)]] pto::TADD(tmp1, tmp0, src2);
// CPP:        pto::TSTORE(src0_gm, src0);
func.func @final_emitc_last_use_level2(%dst: memref<32x32xf32, "GM">, %src0: memref<32x32xf32, "UB">, %src1: memref<32x32xf32, "UB">, %src2: memref<32x32xf32, "UB">) attributes {tile.kernel} {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %src0, %src1, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0, %src2, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %tmp1, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}

// The same kernel without {tile.kernel}: the caller may read %src0.. after it, no argument is
// a last use.
// CHECK-LABEL: func.func @not_an_entry
// CHECK:      tile.add %src0, %src1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: false, false, false>}
// CHECK-NEXT: tile.add %tmp0, %src2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false, false>}
func.func @not_an_entry(%dst: memref<32x32xf32, "GM">, %src0: memref<32x32xf32, "UB">, %src1: memref<32x32xf32, "UB">, %src2: memref<32x32xf32, "UB">) {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %src0, %src1, %tmp0 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0, %src2, %tmp1 : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %tmp1, %dst : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}
