// The bundled mixed kernels (ascend-a2-mix): insert-sync puts a cross-core flag pair on every GM
// FIFO hand-over between the cube core and AIV0 - after the cube's FIX store and before the vector
// core's load (and back, a slot refilled only after the other core read it) - and only ordinary
// flags between the pipes of one core. The output verifies (ids within the 16 FFTS flags).
// RUN: %tilesched opt %examples/ascend_mix_gemm_epilogue_free.mlir -p insert-sync --target ascend-a2-mix | %filecheck %s --check-prefix=GEMM
// RUN: %tilesched opt %examples/ascend_mix_flash_attention_free.mlir -p insert-sync --target ascend-a2-mix | %filecheck %s --check-prefix=FA
// RUN: %tilesched opt %examples/ascend_mix_flash_attention_free.mlir -p insert-sync,verify --target ascend-a2-mix > /dev/null
// GEMM-LABEL: scf.for %n
// GEMM:       sync.cross_wait "AIV0" -> "AIC", [[FREE:[0-9]+]]
// GEMM:       tile.store %acc, %ws_slot
// GEMM-NEXT:  sync.cross_set "AIC" -> "AIV0", [[FULL:[0-9]+]] after "FIX"
// GEMM:       sync.cross_wait "AIC" -> "AIV0", [[FULL]]
// GEMM-NEXT:  tile.load %ws_slot, %c_ub
// GEMM:       sync.cross_set "AIV0" -> "AIC", [[FREE]] after "MTE2"
// GEMM:       }
// GEMM-NOT:   sync.set_flag "AIC.{{[A-Z0-9]+}}" -> "AIV
// GEMM-NOT:   sync.set_flag "AIV0.{{[A-Z0-9]+}}" -> "AIC
// FA-LABEL:   scf.for %j
// FA:         tile.store %s_l0c, %{{.*}} : memref<64x64xf32, "L0C">
// FA:         sync.cross_set "AIC" -> "AIV0", %[[QK:[0-9]+]] after "FIX"
// FA:         sync.cross_wait "AIC" -> "AIV0", %[[QK]]
// FA-NEXT:    tile.load %{{.*}}, %s_ub
// FA:         tile.store %s_ub, %{{.*}} : memref<64x64xf32, "UB">
// FA:         sync.cross_set "AIV0" -> "AIC", %{{[0-9]+}} after "MTE3"
// FA:         sync.cross_wait "AIV0" -> "AIC", %{{[0-9]+}}
// FA-NEXT:    tile.load %{{.*}}, %p_l1
// FA:         tile.store %o_l0c, %{{.*}}
// FA:         sync.cross_set "AIC" -> "AIV0", %{{[0-9]+}} after "FIX"
// FA:         sync.cross_wait "AIC" -> "AIV0", %{{[0-9]+}}
// FA-NEXT:    tile.load %{{.*}}, %pv_ub
// FA:         }
