// ascend-a2-mix: one kernel source for every core. The program keeps its loop (every core runs
// it); each op's statements sit in its core's section: the cube core's under __DAV_CUBE__, a
// vector core's under __DAV_VEC__ and its get_subblockid() (TILESCHED_ON_SUBBLOCK). Cross-core
// flags are ffts_cross_core_sync(PIPE of the set's unit, mode-2 message) and wait_flag_dev;
// ordinary flags lose the core in their PIPE_ name. tests/emit/test_run_cpp.py compiles and runs
// the mixed examples.
// RUN: %tilesched opt %s -p emit-cpp --target ascend-a2-mix | %filecheck %s
// CHECK:      #define TILESCHED_ON_SUBBLOCK(k) (get_subblockid() == (k))
// CHECK:      #if defined(__DAV_CUBE__)  // AIC
// CHECK-NEXT:   pto::TileAcc<float, 16, 16> acc;
// CHECK:      #if defined(__DAV_VEC__)  // AIV0
// CHECK-NEXT:   pto::Tile<pto::TileType::Vec, float, 16, 16
// CHECK:      for (int64_t i = c0; i < c2; i += c1) {
// CHECK:        #if defined(__DAV_CUBE__)  // AIC
// CHECK-NEXT:   wait_flag_dev(s);
// CHECK-NEXT:   pto::TSTORE(ws_gm, acc);
// CHECK-NEXT:   ffts_cross_core_sync(PIPE_FIX, pto::getFFTSMsg(FFTS_MODE_VAL, 2));
// CHECK-NEXT:   #endif
// CHECK-NEXT:   #if defined(__DAV_VEC__)  // AIV0
// CHECK-NEXT:   if (TILESCHED_ON_SUBBLOCK(0)) {
// CHECK-NEXT:     wait_flag_dev(2);
// CHECK-NEXT:     pto::TLOAD(u, ws_gm);
// CHECK-NEXT:     ffts_cross_core_sync(PIPE_MTE2, pto::getFFTSMsg(FFTS_MODE_VAL, s));
// CHECK-NEXT:     set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:     wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT:     pto::TSTORE(o_gm, u);
// CHECK-NEXT:   }
// CHECK-NEXT:   #endif
// CHECK-NEXT:   #if defined(__DAV_VEC__)  // AIV1
// CHECK-NEXT:   if (TILESCHED_ON_SUBBLOCK(1)) {
// CHECK-NEXT:     pto::TLOAD(u1, o_gm);
func.func @mixed(%ws: memref<16x16xf32, "GM">, %o: memref<16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %acc = memref.alloc() : memref<16x16xf32, "L0C">
  %u = memref.alloc() : memref<16x16xf32, "UB">
  %u1 = memref.alloc() : memref<16x16xf32, "UB">
  scf.for %i = %c0 to %c2 step %c1 {
    %s = arith.remui %i, %c2 : index
    sync.cross_wait "AIV0" -> "AIC", %s
    tile.store %acc, %ws : memref<16x16xf32, "L0C">, memref<16x16xf32, "GM">
    sync.cross_set "AIC" -> "AIV0", 2 after "FIX"
    sync.cross_wait "AIC" -> "AIV0", 2
    tile.load %ws, %u : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    sync.cross_set "AIV0" -> "AIC", %s after "MTE2"
    sync.set_flag "AIV0.MTE2" -> "AIV0.MTE3", 0
    sync.wait_flag "AIV0.MTE2" -> "AIV0.MTE3", 0
    tile.store %u, %o : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
    tile.load %o, %u1 {tile.core = "AIV1"} : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  }
  func.return
}
