// The planner can refuse a merge that pays off locally: with 4 live tiles, exp's first reader
// (add, which brings two more tiles) would fill the span, so the plain greedy planner takes it
// and then cannot add relu or the second exp without spilling. The search keeps the state that
// refused it and groups exp with relu and exp instead: two cheaper members. exact=true (CP-SAT)
// proves that plan optimal.
// RUN: %tilesched opt %s -p fuse-tiles --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=SEARCH
// RUN: %tilesched opt %s -p "fuse-tiles{planner=greedy}" --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=GREEDY
// RUN: %tilesched opt %s -p "fuse-tiles{exact=true}" --target %S/Inputs/ascend-4-tiles.toml | %filecheck %s --check-prefix=SEARCH
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target %S/Inputs/ascend-4-tiles.toml > %t
// RUN: %tilesched equiv %s %t --target %S/Inputs/ascend-4-tiles.toml
// SEARCH:      tile.exp %a, %t {tile.fusion_group = 0 : i64, tile.fusion_order = 0
// SEARCH-NEXT: tile.relu %t, %v {tile.fusion_group = 0 : i64, tile.fusion_order = 1
// SEARCH-NEXT: tile.exp %t, %w {tile.fusion_group = 0 : i64, tile.fusion_order = 2
// SEARCH:      tile.add %t, %d, %u :
// GREEDY:      tile.exp %a, %t {tile.fusion_group = 0 : i64, tile.fusion_order = 0
// GREEDY-NEXT: tile.add %t, %d, %u {tile.fusion_group = 0 : i64, tile.fusion_order = 1
// GREEDY-NEXT: tile.relu %t, %v :
// GREEDY-NEXT: tile.exp %t, %w :
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
