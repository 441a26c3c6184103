// Cross-core flags (split-core targets): custom and generic syntax read the same ops; the custom
// form prints back, and the generic form round-trips through it.
// RUN: %tilesched opt %s -p verify --target ascend-a2-mix | %filecheck %s
// RUN: %tilesched opt %s -p verify --target ascend-a2-mix --generic | %tilesched opt - -p verify --target ascend-a2-mix | %filecheck %s
// RUN: %tilesched opt %s -p verify --target ascend-a2-mix --generic | %filecheck %s --check-prefix=GENERIC
// CHECK:      sync.cross_set "AIC" -> "AIV0", 3 after "FIX"
// CHECK-NEXT: sync.cross_wait "AIC" -> "AIV0", 3
// CHECK-NEXT: sync.cross_set "AIV0" -> "AIC", %i after "MTE3"
// CHECK-NEXT: sync.cross_wait "AIV0" -> "AIC", %i
// CHECK-NEXT: sync.cross_set "AIV1" -> "AIC", 15 after "MTE3"
// CHECK-NEXT: sync.cross_wait "AIV1" -> "AIC", 15
// CHECK-NEXT: sync.set_flag "AIV0.MTE2" -> "AIV0.V", 0
// GENERIC: "sync.cross_set"() <{src = "AIC", dst = "AIV0", id = 3 : i64, unit = "FIX"}> : () -> ()
// GENERIC: "sync.cross_wait"(%i) <{src = "AIV0", dst = "AIC"}> : (index) -> ()
func.func @f() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %i = arith.remui %c0, %c2 : index
  sync.cross_set "AIC" -> "AIV0", 3 after "FIX"
  sync.cross_wait "AIC" -> "AIV0", 3
  sync.cross_set "AIV0" -> "AIC", %i after "MTE3"
  "sync.cross_wait"(%i) {src = "AIV0", dst = "AIC"} : (index) -> ()
  "sync.cross_set"() {src = "AIV1", dst = "AIC", id = 15 : i64, unit = "MTE3"} : () -> ()
  "sync.cross_wait"() <{src = "AIV1", dst = "AIC", id = 15 : i64}> : () -> ()
  sync.set_flag "AIV0.MTE2" -> "AIV0.V", 0
  func.return
}
