// An scf.while is a C++ `while (true)` loop: the before region's arguments are variables carried
// around it, its ops run, the values scf.condition forwards become the while's results, the loop
// breaks when the condition is false, and the after region (its arguments bound to the forwarded
// values) ends by assigning the yielded values to the carried variables. A buffer used in the
// loop lives for all of it in the address plan; insert-sync drains each round (barrier_all). test_run_cpp.py compiles and runs this kernel.
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync,emit-cpp --target ascend-a2 | %filecheck %s
// RUN: %tilesched opt %s -p fuse-tiles,insert-sync > %t.mlir
// RUN: %tilesched sim %t.mlir | %filecheck %s --check-prefix=SIM
// RUN: %tilesched equiv %s %t.mlir | %filecheck %s --check-prefix=EQ
// SIM: verdict    ok
// EQ: : equivalent
// CHECK:      //   UB   [      0,    1024)  %a  live 5..{{[0-9]+}}
// CHECK:      int64_t i = c0;
// CHECK-NEXT: int64_t total = c0;
// CHECK-NEXT: int64_t r;
// CHECK-NEXT: int64_t r_1;
// CHECK-NEXT: while (true) {
// CHECK-NEXT:   const bool going = i < c3;
// CHECK-NEXT:   r = i;
// CHECK-NEXT:   r_1 = total;
// CHECK-NEXT:   if (!going) break;
// CHECK-NEXT:   const int64_t j = r;
// CHECK-NEXT:   const int64_t sum = r_1;
// CHECK:        pto::TLOAD(a, s);
// CHECK:        {{\[\[}}pto::last_use({{.*}})]] pto::TEXP(a, a);
// CHECK-NEXT:   {{\[\[}}pto::last_use({{.*}})]] pto::TMULS(a, a, half_v);
// CHECK:        pto::TSTORE(d, a);
// CHECK:        const int64_t j1 = j + c1;
// CHECK-NEXT:   const int64_t sum1 = sum + j;
// CHECK-NEXT:   pipe_barrier(PIPE_ALL);
// CHECK-NEXT:   const auto i_next = j1;
// CHECK-NEXT:   const auto total_next = sum1;
// CHECK-NEXT:   i = i_next;
// CHECK-NEXT:   total = total_next;
// CHECK-NEXT: }
func.func @rounds(%g: memref<4x16x16xf32, "GM">, %o: memref<4x16x16xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %a = memref.alloc() : memref<16x16xf32, "UB">
  %r:2 = scf.while (%i = %c0, %total = %c0) : (index, index) -> (index, index) {
    %going = arith.cmpi slt, %i, %c3 : index
    scf.condition(%going) %i, %total : index, index
  } do {
  ^bb0(%j: index, %sum: index):
    %s = tile.slot %g[%j] : memref<4x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    %d = tile.slot %o[%j] : memref<4x16x16xf32, "GM"> -> memref<16x16xf32, "GM">
    tile.load %s, %a : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">
    tile.exp %a, %a : memref<16x16xf32, "UB">, memref<16x16xf32, "UB">
    tile.muls %a, %half, %a : memref<16x16xf32, "UB">, f32, memref<16x16xf32, "UB">
    tile.store %a, %d : memref<16x16xf32, "UB">, memref<16x16xf32, "GM">
    %j1 = arith.addi %j, %c1 : index
    %sum1 = arith.addi %sum, %j : index
    scf.yield %j1, %sum1 : index, index
  }
  func.return
}
