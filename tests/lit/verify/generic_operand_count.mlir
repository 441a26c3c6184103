// Generic-form input read by the fast path reports errors as xDSL's parser does: here a tile
// op whose operand list and function type disagree.
// RUN: not %tilesched opt %s -p verify --target ascend-a2 2>&1 | %filecheck %s
// CHECK-NOT: Traceback
"builtin.module"() ({
  "func.func"() <{sym_name = "k", function_type = (memref<16x64xf16, "UB">) -> ()}> ({
  ^bb0(%u: memref<16x64xf16, "UB">):
    "tile.exp"(%u, %u) : (memref<16x64xf16, "UB">, memref<16x64xf16, "UB">) -> ()
    // CHECK: generic_operand_count.mlir:[[# @LINE + 1]]:26: error: expected 3 operand types but had 2
    "tile.add"(%u, %u) : (memref<16x64xf16, "UB">, memref<16x64xf16, "UB">, memref<16x64xf16, "UB">) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
