// Every tile and sync op prints in custom syntax and parses back to the same text.
// RUN: %tilesched opt %s --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s --target ascend-a2 > %t.mlir && %tilesched opt %t.mlir --target ascend-a2 | diff %t.mlir -

func.func @all_ops(%gm: memref<64x64xf16, "GM">, %out: memref<64x64xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l1 = memref.alloc() : memref<2x64x64xf16, "L1">
  %a = memref.alloc() : memref<64x64xf16, "L0A">
  %b = memref.alloc() : memref<64x64xf16, "L0B">
  %c = memref.alloc() : memref<64x64xf32, "L0C">
  %u = memref.alloc() : memref<64x64xf32, "UB">
  %v = memref.alloc() : memref<64x64xf32, "UB">
  %r = memref.alloc() : memref<64x1xf32, "UB">
  %h = memref.alloc() : memref<64x64xf16, "UB">
  %f = memref.alloc() : memref<4096xf32, "UB">
  %s = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    // CHECK: %[[SLOT:.*]] = tile.slot %{{.*}}[%{{.*}}] : memref<2x64x64xf16, "L1"> -> memref<64x64xf16, "L1">
    %slot = tile.slot %l1[%i] : memref<2x64x64xf16, "L1"> -> memref<64x64xf16, "L1">
    // CHECK: tile.load %{{.*}}, %[[SLOT]] {tile.stage = 0 : i64, tile.order = 0 : i64} : memref<64x64xf16, "GM">, memref<64x64xf16, "L1">
    tile.load %gm, %slot {tile.stage = 0 : i64, tile.order = 0 : i64} : memref<64x64xf16, "GM">, memref<64x64xf16, "L1">
    // CHECK: sync.set_flag "MTE2" -> "MTE1", 0
    sync.set_flag "MTE2" -> "MTE1", 0
    // CHECK: sync.wait_flag "MTE2" -> "MTE1", 0
    sync.wait_flag "MTE2" -> "MTE1", 0
    tile.copy %slot, %a : memref<64x64xf16, "L1">, memref<64x64xf16, "L0A">
    tile.copy %slot, %b : memref<64x64xf16, "L1">, memref<64x64xf16, "L0B">
    // CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} {accumulate} : memref<64x64xf16, "L0A">, memref<64x64xf16, "L0B">, memref<64x64xf32, "L0C">
    tile.matmul %a, %b, %c {accumulate} : memref<64x64xf16, "L0A">, memref<64x64xf16, "L0B">, memref<64x64xf32, "L0C">
  } {tile.async_stages = [0]}
  // CHECK: } {tile.async_stages = [0 : i64]}
  // CHECK: tile.store %{{.*}}, %{{.*}} : memref<64x64xf32, "L0C">, memref<64x64xf32, "GM">
  tile.store %c, %out : memref<64x64xf32, "L0C">, memref<64x64xf32, "GM">
  // CHECK: sync.pipe_barrier "V"
  sync.pipe_barrier "V"
  // CHECK: sync.barrier_all
  sync.barrier_all
  tile.fill %u {value = 0.000000e+00 : f32} : memref<64x64xf32, "UB">
  tile.add %u, %u, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.sub %u, %v, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.mul %u, %v, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.div %u, %v, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.max %u, %v, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.min %u, %v, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  // CHECK: tile.adds %{{.*}}, %{{.*}}, %{{.*}} : memref<64x64xf32, "UB">, f32, memref<64x64xf32, "UB">
  tile.adds %u, %s, %v : memref<64x64xf32, "UB">, f32, memref<64x64xf32, "UB">
  tile.muls %u, %s, %v : memref<64x64xf32, "UB">, f32, memref<64x64xf32, "UB">
  tile.maxs %u, %s, %v : memref<64x64xf32, "UB">, f32, memref<64x64xf32, "UB">
  tile.exp %u, %v {pipe = "V", latency = 40 : i64} : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  // CHECK: tile.exp %{{.*}}, %{{.*}} {pipe = "V", latency = 40 : i64}
  tile.neg %u, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.abs %u, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.relu %u, %v : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.cast %u, %h : memref<64x64xf32, "UB">, memref<64x64xf16, "UB">
  tile.rowsum %u, %r : memref<64x64xf32, "UB">, memref<64x1xf32, "UB">
  tile.rowmax %u, %r : memref<64x64xf32, "UB">, memref<64x1xf32, "UB">
  tile.rowexpand_sub %u, %r, %v : memref<64x64xf32, "UB">, memref<64x1xf32, "UB">, memref<64x64xf32, "UB">
  tile.rowexpand_mul %u, %r, %v : memref<64x64xf32, "UB">, memref<64x1xf32, "UB">, memref<64x64xf32, "UB">
  tile.rowexpand_div %u, %r, %v : memref<64x64xf32, "UB">, memref<64x1xf32, "UB">, memref<64x64xf32, "UB">
  // CHECK: tile.reshape %{{.*}}, %{{.*}} : memref<64x64xf32, "UB">, memref<4096xf32, "UB">
  tile.reshape %u, %f : memref<64x64xf32, "UB">, memref<4096xf32, "UB">
  // CHECK: tile.call %{{.*}}, %{{.*}} {callee = "opaque"} : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  tile.call %u, %v {callee = "opaque"} : memref<64x64xf32, "UB">, memref<64x64xf32, "UB">
  %w = tile.view %u[%c0, %c2] {sizes = array<i64: 32, 16>} : memref<64x64xf32, "UB"> -> memref<32x16xf32, "UB">
  // CHECK: tile.view %{{.*}}[%{{.*}}, %{{.*}}] {sizes = array<i64: 32, 16>} : memref<64x64xf32, "UB"> -> memref<32x16xf32, "UB">
  // CHECK: tile.stage_border "s0" {priority = 1 : i64}
  tile.stage_border "s0" {priority = 1 : i64}
  func.return
}
