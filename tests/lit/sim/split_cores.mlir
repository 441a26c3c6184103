// The simulator on the split-core target ascend-a2-mix (docs/simulator.md, "Split cores"): one
// issuer per core, every core's units in the table, the hand-synced mixed kernels clean, their
// sync-free twins racing on the GM FIFO between the cube core (AIC.FIX store) and the vector core
// (AIV0.MTE2 load), and insert-sync making the twins clean. No cycle count is pinned.
// RUN: %tilesched sim %examples/ascend_mix_gemm_epilogue.mlir --target ascend-a2-mix | %filecheck %s --check-prefix=GEMM
// RUN: %tilesched sim %examples/ascend_mix_flash_attention.mlir --target ascend-a2-mix | %filecheck %s --check-prefix=CLEAN
// RUN: not %tilesched sim %examples/ascend_mix_gemm_epilogue_free.mlir --target ascend-a2-mix | %filecheck %s --check-prefix=RACE
// RUN: not %tilesched sim %examples/ascend_mix_flash_attention_free.mlir --target ascend-a2-mix | %filecheck %s --check-prefix=RACE
// RUN: %tilesched opt %examples/ascend_mix_flash_attention_free.mlir -p insert-sync --target ascend-a2-mix > %t.mlir
// RUN: %tilesched sim %t.mlir --target ascend-a2-mix | %filecheck %s --check-prefix=CLEAN
// GEMM:       target     ascend-a2-mix
// GEMM:       AIC.MTE2
// GEMM:       AIC.FIX
// GEMM:       AIV0.V
// GEMM:       AIV1.V
// GEMM:       verdict    ok: no races, no deadlock, no sync violations
// CLEAN:      verdict    ok: no races, no deadlock, no sync violations
// RACE:       verdict    FAULTY
// RACE:       race on {{.*}}[AIC.FIX] vs tile.load at {{.*}}[AIV0.MTE2]
