// The planner prices register pressure by the tiles live at the same time in a span (issue 27,
// item 3). exp's readers (add, relu, exp) each hold at most 4 tiles at once, the limit of
// Inputs/ascend-4-tiles.toml: under the old model (distinct tiles per span) add filled the span
// and the greedy planner took exp + add while the search refused it for exp + relu + exp; now
// no merge spills, and search, greedy and CP-SAT agree on one group of four. The refusal
// itself is tested on graphs (tests/schedule/fusion/test_fusion_planning.py,
// test_search_refuses_a_locally_good_merge_the_greedy_planner_takes). whole-block=false: the
// planners alone; with the whole block judged (default) nothing is fused here, because the
// three stores on MTE3 would wait for the whole span (tests the refusal of a plan slower than
// no fusion).
// RUN: %tilesched opt %s -p "fuse-tiles{whole-block=false}" --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=SEARCH
// RUN: %tilesched opt %s -p "fuse-tiles{planner=greedy whole-block=false}" --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=SEARCH
// RUN: %tilesched opt %s -p "fuse-tiles{exact=true whole-block=false}" --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=SEARCH
// RUN: %tilesched opt %s -p fuse-tiles --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=BLOCK
// RUN: %tilesched opt %s -p "fuse-tiles{whole-block=false},insert-sync" --target %S/Inputs/ascend-4-tiles.toml > %t
// RUN: %tilesched equiv %s %t --target %S/Inputs/ascend-4-tiles.toml
// SEARCH:      tile.exp %a, %t {tile.fusion_group = 0 : i64, tile.fusion_order = 0
// SEARCH-NEXT: tile.add %t, %d, %u {tile.fusion_group = 0 : i64, tile.fusion_order = 1
// SEARCH-NEXT: tile.relu %t, %v {tile.fusion_group = 0 : i64, tile.fusion_order = 2
// SEARCH-NEXT: tile.exp %t, %w {tile.fusion_group = 0 : i64, tile.fusion_order = 3
// BLOCK-NOT:   tile.fusion_group
func.func @refuse(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %o1: memref<16x32xf32, "GM">, %o2: memref<16x32xf32, "GM">, %o3: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  %t = memref.alloc() : memref<16x32xf32, "UB">
  %u = memref.alloc() : memref<16x32xf32, "UB">
  %v = memref.alloc() : memref<16x32xf32, "UB">
  %w = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.load %y, %d : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.add %t, %d, %u : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.relu %t, %v : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.exp %t, %w : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.store %u, %o1 : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  tile.store %v, %o2 : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  tile.store %w, %o3 : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
