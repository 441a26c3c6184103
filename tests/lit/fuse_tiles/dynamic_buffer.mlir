// Buffers with a dynamic shape (a `?` argument, a dynamic alloc; only calls may touch them) have
// no element numbering: their liveness is tracked whole (a read makes the buffer live, a write
// kills nothing), so fuse-tiles still fuses the static chain beside them and sets its last-use
// flags, instead of failing with an internal error (a `?` argument alone was enough).
// RUN: %tilesched opt %s -p fuse-tiles --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %S/../emit_cpp/Inputs/dynamic_arg.mlir -p fuse-tiles --target ascend-a2 | %filecheck %s --check-prefix=ARG
// RUN: not %tilesched opt %S/../emit_cpp/Inputs/dynamic_arg.mlir -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 2>&1 | %filecheck %s --check-prefix=EMIT
// CHECK-NOT:  internal error
// CHECK:      tile.exp %a, %b {tile.fusion_group = 0 : i64, tile.fusion_order = 0 : i64, tile.last_use = array<i1: true, false>}
// CHECK-NEXT: tile.neg %b, %c {tile.fusion_group = 0 : i64, tile.fusion_order = 1 : i64, tile.last_use = array<i1: true, false>}
// CHECK:      func.call @consume(%x, %d, %c)
// ARG:        func.func @dyn(%x: memref<?x32xf16, "GM">)
// EMIT-NOT:   internal error
// EMIT:       dynamic_arg.mlir:1:1: error: emit-cpp cannot print 'func.func': the dynamic shape memref<?x32xf16, "GM"> has no spelling in PTO-ISA C++ (tiles have static shapes)
func.func @dynamic(%x: memref<?x32xf32, "GM">, %y: memref<16x32xf32, "GM">, %n: index) {
  %a = memref.alloc() : memref<16x32xf32, "UB">
  %b = memref.alloc() : memref<16x32xf32, "UB">
  %c = memref.alloc() : memref<16x32xf32, "UB">
  %d = memref.alloc(%n) : memref<?x32xf32, "UB">
  tile.load %y, %a : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
  tile.exp %a, %b : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  tile.neg %b, %c : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  func.call @consume(%x, %d, %c) : (memref<?x32xf32, "GM">, memref<?x32xf32, "UB">, memref<16x32xf32, "UB">) -> ()
  func.return
}
func.func private @consume(memref<?x32xf32, "GM">, memref<?x32xf32, "UB">, memref<16x32xf32, "UB">)
