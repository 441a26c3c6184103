// The groups PTOAS's FusionPlan gives fusion_plan_cost_guided_search.pto (its CHECK lines),
// written by hand over ../anchor_cost_guided_search.mlir: fuse-tiles keeps hand-written groups and
// marks their last uses, so the anchor's plan can be simulated beside tilesched's
// (tests/transforms/test_fuse_tiles_anchors.py, benchmarks/bench_fuse.py).
func.func @prefer_higher_group_cost(%arg0: memref<32x32xf32, "UB">, %arg1: memref<32x32xf32, "UB">, %arg2: memref<32x32xf32, "UB">, %arg3: memref<32x32xf32, "UB">, %arg4: memref<32x32xf32, "UB">, %arg5: memref<32x32xf32, "UB">, %arg6: memref<32x32xf32, "UB">, %arg7: memref<32x32xf32, "UB">, %arg8: memref<32x32xf32, "UB">) {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp2 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp3 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp4 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp5 = memref.alloc() : memref<32x32xf32, "UB">
  %first = memref.alloc() : memref<32x32xf32, "UB">
  %second = memref.alloc() : memref<32x32xf32, "UB">
  %join = memref.alloc() : memref<32x32xf32, "UB">
  %independent0 = memref.alloc() : memref<32x32xf32, "UB">
  %independent1 = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %arg0, %arg1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0, %arg2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp1, %arg3, %tmp2 {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp2, %arg4, %tmp3 {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp3, %arg5, %tmp4 {tile.fusion_group = 0 : i64, tile.fusion_order = 4 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp4, %tmp5 {tile.fusion_group = 0 : i64, tile.fusion_order = 5 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp5, %first : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp5, %arg6, %second {tile.fusion_group = 0 : i64, tile.fusion_order = 6 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %second, %tmp0, %join {tile.fusion_group = 0 : i64, tile.fusion_order = 7 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %arg7, %arg8, %independent0 {tile.fusion_group = 1 : i64, tile.fusion_order = 0 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %independent0, %independent1 {tile.fusion_group = 1 : i64, tile.fusion_order = 1 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
func.func @stable_equal_cost_tie(%arg0: memref<32x32xf32, "UB">, %arg1: memref<32x32xf32, "UB">, %arg2: memref<32x32xf32, "UB">, %arg3: memref<32x32xf32, "UB">, %arg4: memref<32x32xf32, "UB">, %arg5: memref<32x32xf32, "UB">, %arg6: memref<32x32xf32, "UB">) {
  %tmp0 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp1 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp2 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp3 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp4 = memref.alloc() : memref<32x32xf32, "UB">
  %tmp5 = memref.alloc() : memref<32x32xf32, "UB">
  %first = memref.alloc() : memref<32x32xf32, "UB">
  %second = memref.alloc() : memref<32x32xf32, "UB">
  tile.add %arg0, %arg1, %tmp0 {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp0, %arg2, %tmp1 {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp1, %arg3, %tmp2 {tile.fusion_group = 0 : i64, tile.fusion_order = 2 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp2, %arg4, %tmp3 {tile.fusion_group = 0 : i64, tile.fusion_order = 3 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp3, %arg5, %tmp4 {tile.fusion_group = 0 : i64, tile.fusion_order = 4 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.add %tmp4, %arg6, %tmp5 {tile.fusion_group = 0 : i64, tile.fusion_order = 5 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp5, %first {tile.fusion_group = 0 : i64, tile.fusion_order = 6 : i64} : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.exp %tmp5, %second : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  func.return
}
