// Group and barrier sync ops in generic form: wait_group with a property or an index operand,
// barriers with the `local` unit attribute, cond_barrier, setprio, sched_barrier.
// RUN: %tilesched opt %s -p verify --target amd-gfx950 | %filecheck %s

"builtin.module"() ({
  "func.func"() <{sym_name = "amd", function_type = (memref<64x64xf16, "global">, index) -> ()}> ({
  ^bb0(%g: memref<64x64xf16, "global">, %n: index):
    %lds = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64x64xf16, "LDS">
    %r = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64x64xf16, "local">
    "tile.load"(%g, %lds) : (memref<64x64xf16, "global">, memref<64x64xf16, "LDS">) -> ()
    // CHECK: sync.barrier local
    "sync.barrier"() {local} : () -> ()
    "tile.copy"(%lds, %r) : (memref<64x64xf16, "LDS">, memref<64x64xf16, "local">) -> ()
    // CHECK: sync.cond_barrier "high"
    "sync.cond_barrier"() {group = "high"} : () -> ()
    // CHECK: sync.setprio 1
    "sync.setprio"() {priority = 1 : i64} : () -> ()
    // CHECK: sync.sched_barrier
    "sync.sched_barrier"() : () -> ()
    // CHECK: sync.barrier{{$}}
    "sync.barrier"() : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
