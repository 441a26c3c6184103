// Two async producers in stage 0 with their consumer (stage 3) ordered between them
// (stage [0, 0, 3], order [0, 2, 1]): the group is split around the consumer, which waits 5:
// B of iteration i-3 must be done, A(i), A(i-1), B(i-1), A(i-2), B(i-2) may stay in flight.
// B's reader runs before B's next writer in the kernel, so B needs 3 slots, A 4.
// RUN: %tilesched opt %s -p software-pipeline --target cuda-sm80 -o %t
// RUN: %filecheck %s < %t
// RUN: %tilesched sim %t --target cuda-sm80 | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t --target cuda-sm80
// SIM: verdict    ok
func.func @interleaved(%a: memref<512x32xf16, "global">, %b: memref<512x32xf16, "global">, %out: memref<512x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // CHECK-DAG: %[[AS:.*]] = memref.alloc() : memref<4x32x32xf16, "shared">
  // CHECK-DAG: %[[BS:.*]] = memref.alloc() : memref<3x32x32xf16, "shared">
  %a_sh = memref.alloc() : memref<32x32xf16, "shared">
  %b_sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  // CHECK:      scf.for
  // CHECK:        tile.load %{{.*}}, %{{.*}} :
  // CHECK-NEXT:   sync.commit_group 0
  // CHECK-NEXT:   sync.wait_group 0 {pending = 5 : i64}
  // CHECK:        tile.add
  // CHECK:        tile.load %{{.*}}, %{{.*}} :
  // CHECK-NEXT:   sync.commit_group 0
  // CHECK-NOT:    sync.
  // CHECK:        tile.store
  // CHECK-NEXT: {{^    }$}}
  // CHECK:      sync.wait_group 0 {pending = 4 : i64}
  // CHECK:      sync.wait_group 0 {pending = 2 : i64}
  // CHECK:      sync.wait_group 0 {pending = 0 : i64}
  scf.for %i = %c0 to %c16 step %c1 {
    %off = arith.muli %i, %c32 : index
    %src_a = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src_a, %a_sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    %src_b = tile.view %b[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src_b, %b_sh {tile.stage = 0, tile.order = 2} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.add %a_sh, %b_sh, %r {tile.stage = 3, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<512x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 3, tile.order = 3} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
