// A loop on several units whose body calls a function inline on the issuer: no flag plan
// orders it (the call has unknown effects and runs on the issuer), so barrier_all stays before
// and after it, and a warning names the reason. The program is still correct.
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 2>&1 >/dev/null | %filecheck %s --check-prefix=WARN
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 2>/dev/null | %filecheck %s
// RUN: %tilesched opt %s -p insert-sync --target ascend-a2 2>/dev/null | %tilesched sim - --target ascend-a2 --full | %filecheck %s --check-prefix=SIM
// WARN: warning: barrier_all before and after this region: no flag plan fits, it contains work on the issuer or with unknown effects
// SIM: verdict    ok: no races, no deadlock, no sync violations
// CHECK:      tile.load %x, %a
// CHECK-NEXT: sync.barrier_all
// CHECK:      scf.for
// CHECK:      }
// CHECK:      sync.barrier_all
// CHECK-NEXT: tile.store %a, %y
func.func @calls(%x: memref<32x32xf32, "GM">, %y: memref<32x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<32x32xf32, "UB">
  tile.load %x, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  scf.for %i = %c0 to %c3 step %c1 {
    tile.exp %a, %a : memref<32x32xf32, "UB">, memref<32x32xf32, "UB">
    tile.call %a {callee = "host_fn"} : memref<32x32xf32, "UB">
    tile.load %x, %a : memref<32x32xf32, "GM">, memref<32x32xf32, "UB">
  }
  tile.store %a, %y : memref<32x32xf32, "UB">, memref<32x32xf32, "GM">
  func.return
}
