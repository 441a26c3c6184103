// tile.call is opaque (tilesched's semantics: it changes no data; the simulator never runs a
// body for it), also when the module defines a function of that name: the callee is a
// declaration of its own (here helper_1), never the module's @helper, which is printed as a
// kernel of its own (its UB argument staged). run-cpp defines opaque callees as no-ops and
// agrees with the numpy semantics (tests/emit/test_run_cpp.py runs this file).
// RUN: %tilesched opt %s -p insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir | %filecheck %s --check-prefix=SIM
// CHECK:      template <typename... Args> AICORE void helper_1(Args&... args);
// CHECK:      __global__ AICORE void k(__gm__ float* g) {
// CHECK:        helper_1(a);
// CHECK:      __global__ AICORE void helper(__gm__ float* x_home) {
// SIM: verdict    ok
func.func @k(%g: memref<16x16xf32, "GM">) {
  %a = memref.alloc() : memref<16x16xf32, "UB">
  tile.load %g, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
  tile.call %a {callee = "helper"} : memref<16x16xf32, "UB">
  tile.store %a, %g : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
  func.return
}
func.func @helper(%x: memref<16x16xf32, "UB">) {
  tile.exp %x, %x : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
  func.return
}
