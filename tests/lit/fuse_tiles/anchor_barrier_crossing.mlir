// Regression for the anchor's third bug (the planner grouped ops across a side-effecting op that
// scheduling then refused to cross, leaving a split group): exp -> neg -> abs is one dataflow
// chain, but an existing barrier_all and a pipe_barrier sit between its ops, and nothing moves
// across sync. No group may cross them: every op stays alone. Grouping across fails here.
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 > %t
// RUN: %tilesched equiv %s %t --target ascend-a2
// CHECK-NOT: tile.fusion_group
func.func @barriers(%x: memref<16x32xf32, "GM">, %y: memref<16x32xf32, "GM">) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc() : memref<16x32xf32, "UB">
  tile.load %x, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  sync.barrier_all
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  sync.barrier_all
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  sync.pipe_barrier "V"
  tile.abs %c, %d : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  sync.barrier_all
  tile.store %d, %y : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
  func.return
}
