// Kernels written in the generic form of DESIGN.md §2, with properties in the attribute
// dictionary, parse, verify and print back stably (generic -> generic is unchanged).
// RUN: %tilesched opt %s -p verify --target ascend-a2 --generic > %t.mlir
// RUN: %tilesched opt %t.mlir -p verify --target ascend-a2 --generic | diff %t.mlir -
// RUN: %filecheck %s < %t.mlir

"builtin.module"() ({
  "func.func"() <{sym_name = "k", function_type = (memref<32x32xf16, "GM">, memref<32x32xf16, "GM">) -> ()}> ({
  ^bb0(%in: memref<32x32xf16, "GM">, %out: memref<32x32xf16, "GM">):
    %ub = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32x32xf16, "UB">
    "tile.load"(%in, %ub) : (memref<32x32xf16, "GM">, memref<32x32xf16, "UB">) -> ()
    // CHECK: "sync.set_flag"() <{src = "MTE2", dst = "V", event = 0 : i64}> : () -> ()
    "sync.set_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
    "sync.wait_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
    // CHECK: "tile.exp"(%{{.*}}, %{{.*}}) <{pipe = "V"}> {tile.stage = 1 : i64} : (memref<32x32xf16, "UB">, memref<32x32xf16, "UB">) -> ()
    "tile.exp"(%ub, %ub) {pipe = "V", tile.stage = 1 : i64} : (memref<32x32xf16, "UB">, memref<32x32xf16, "UB">) -> ()
    "sync.set_flag"() {src = "V", dst = "MTE3", event = 0 : i64} : () -> ()
    "sync.wait_flag"() {src = "V", dst = "MTE3", event = 0 : i64} : () -> ()
    "tile.store"(%ub, %out) : (memref<32x32xf16, "UB">, memref<32x32xf16, "GM">) -> ()
    // CHECK: "sync.barrier_all"() : () -> ()
    "sync.barrier_all"() : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
