// cp.async style groups: wait_group with an integer `pending` property or an index operand.
// RUN: %tilesched opt %s -p verify --target cuda-sm80 | %filecheck %s

"builtin.module"() ({
  "func.func"() <{sym_name = "cuda", function_type = (memref<64x64xf16, "global">, index) -> ()}> ({
  ^bb0(%g: memref<64x64xf16, "global">, %n: index):
    %sh = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64x64xf16, "shared">
    "tile.load"(%g, %sh) : (memref<64x64xf16, "global">, memref<64x64xf16, "shared">) -> ()
    // CHECK: sync.commit_group 0
    "sync.commit_group"() {queue = 0 : i64} : () -> ()
    // CHECK: sync.wait_group 0 {pending = 1 : i64}
    "sync.wait_group"() {queue = 0 : i64, pending = 1 : i64} : () -> ()
    // CHECK: sync.wait_group 0, %{{.*}}
    "sync.wait_group"(%n) {queue = 0 : i64} : (index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
