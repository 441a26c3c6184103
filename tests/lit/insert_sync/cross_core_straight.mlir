// ascend-a2-mix: the cube core writes a GM tile (FIX) that a vector core reads (MTE2): one
// cross-core flag pair, set after the FIX store on the cube core and waited by AIV0 before its
// load; within each core ordinary flags between the core's own pipes. An op annotated
// tile.core = "AIV1" runs on the other vector core, so its flags name AIV1's pipes.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2-mix | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync,verify --target ascend-a2-mix > /dev/null
func.func @cube_to_vector(%a: memref<32x32xf16, "GM">, %b: memref<32x32xf16, "GM">,
                          %ws: memref<32x32xf32, "GM">, %o: memref<32x32xf32, "GM">,
                          %o1: memref<32x32xf32, "GM">) {
  %a1 = memref.alloc() : memref<32x32xf16, "L1">
  %b1 = memref.alloc() : memref<32x32xf16, "L1">
  %a0 = memref.alloc() : memref<32x32xf16, "L0A">
  %b0 = memref.alloc() : memref<32x32xf16, "L0B">
  %c = memref.alloc() : memref<32x32xf32, "L0C">
  %u = memref.alloc() : memref<32x32xf32, "UB">
  %u1 = memref.alloc() : memref<32x32xf32, "UB">
  // CHECK:      tile.load %a, %a1
  // CHECK:      tile.load %b, %b1
  // CHECK-NEXT: sync.set_flag "AIC.MTE2" -> "AIC.MTE1", [[E:[0-9]+]]
  // CHECK:      sync.wait_flag "AIC.MTE2" -> "AIC.MTE1", [[E]]
  // CHECK-NEXT: tile.copy %b1, %b0
  // CHECK:      sync.set_flag "AIC.MTE1" -> "AIC.M", [[F:[0-9]+]]
  // CHECK-NEXT: sync.wait_flag "AIC.MTE1" -> "AIC.M", [[F]]
  // CHECK-NEXT: tile.matmul
  // CHECK-NEXT: sync.set_flag "AIC.M" -> "AIC.FIX", [[G:[0-9]+]]
  // CHECK-NEXT: sync.wait_flag "AIC.M" -> "AIC.FIX", [[G]]
  // CHECK-NEXT: tile.store %c, %ws
  // CHECK-NEXT: sync.cross_set "AIC" -> "AIV0", [[X:[0-9]+]] after "FIX"
  // CHECK-DAG:  sync.cross_set "AIC" -> "AIV1", [[Y:[0-9]+]] after "FIX"
  // CHECK-DAG:  sync.cross_wait "AIC" -> "AIV0", [[X]]
  // CHECK:      tile.load %ws, %u
  // CHECK-NEXT: sync.set_flag "AIV0.MTE2" -> "AIV0.V", [[H:[0-9]+]]
  // CHECK-NEXT: sync.wait_flag "AIV0.MTE2" -> "AIV0.V", [[H]]
  // CHECK-NEXT: tile.exp %u, %u
  // CHECK-NEXT: sync.set_flag "AIV0.V" -> "AIV0.MTE3", [[K:[0-9]+]]
  // CHECK-NEXT: sync.wait_flag "AIV0.V" -> "AIV0.MTE3", [[K]]
  // CHECK-NEXT: tile.store %u, %o
  // CHECK:      sync.cross_wait "AIC" -> "AIV1", [[Y]]
  // CHECK-NEXT: tile.load %ws, %u1 {tile.core = "AIV1"}
  // CHECK-NEXT: sync.set_flag "AIV1.MTE2" -> "AIV1.MTE3", {{[0-9]+}}
  // CHECK-NEXT: sync.wait_flag "AIV1.MTE2" -> "AIV1.MTE3", {{[0-9]+}}
  // CHECK-NEXT: tile.store %u1, %o1 {tile.core = "AIV1"}
  // CHECK-NOT:  sync.set_flag "AIC.{{.*}}" -> "AIV
  tile.load %a, %a1 : memref<32x32xf16, "GM">, memref<32x32xf16, "L1">
  tile.load %b, %b1 : memref<32x32xf16, "GM">, memref<32x32xf16, "L1">
  tile.copy %a1, %a0 : memref<32x32xf16, "L1">, memref<32x32xf16, "L0A">
  tile.copy %b1, %b0 : memref<32x32xf16, "L1">, memref<32x32xf16, "L0B">
  tile.matmul %a0, %b0, %c : memref<32x32xf16, "L0A">, memref<32x32xf16, "L0B">, memref<32x32xf32, "L0C">
  tile.store %c, %ws : memref<32x32xf32, "L0C">, memref<32x32xf32, "GM">
  tile.load %ws, %u : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.exp %u, %u : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
  tile.store %u, %o : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  tile.load %ws, %u1 {tile.core = "AIV1"} : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  tile.store %u1, %o1 {tile.core = "AIV1"} : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}
