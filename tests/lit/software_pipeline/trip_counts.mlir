// Static trip counts 0 .. stages + 1 of a three-stage loop (stages [0, 1, 2]): zero trips emit
// nothing; fewer than two kernel iterations emit straight-line code with exact waits; from
// two kernel iterations on, prologue + scf.for + epilogue. Each result is race-free and
// equivalent to the loop it came from.
// RUN: sed "s/TRIPS/0/" %s > %t.0.mlir && %tilesched opt %t.0.mlir -p software-pipeline --target cuda-sm80 -o %t.0.out
// RUN: %tilesched sim %t.0.out --target cuda-sm80 > /dev/null && %tilesched equiv %t.0.mlir %t.0.out --target cuda-sm80
// RUN: sed "s/TRIPS/1/" %s > %t.1.mlir && %tilesched opt %t.1.mlir -p software-pipeline --target cuda-sm80 -o %t.1.out
// RUN: %tilesched sim %t.1.out --target cuda-sm80 > /dev/null && %tilesched equiv %t.1.mlir %t.1.out --target cuda-sm80
// RUN: sed "s/TRIPS/2/" %s > %t.2.mlir && %tilesched opt %t.2.mlir -p software-pipeline --target cuda-sm80 -o %t.2.out
// RUN: %tilesched sim %t.2.out --target cuda-sm80 > /dev/null && %tilesched equiv %t.2.mlir %t.2.out --target cuda-sm80
// RUN: sed "s/TRIPS/3/" %s > %t.3.mlir && %tilesched opt %t.3.mlir -p software-pipeline --target cuda-sm80 -o %t.3.out
// RUN: %tilesched sim %t.3.out --target cuda-sm80 > /dev/null && %tilesched equiv %t.3.mlir %t.3.out --target cuda-sm80
// RUN: sed "s/TRIPS/4/" %s > %t.4.mlir && %tilesched opt %t.4.mlir -p software-pipeline --target cuda-sm80 -o %t.4.out
// RUN: %tilesched sim %t.4.out --target cuda-sm80 > /dev/null && %tilesched equiv %t.4.mlir %t.4.out --target cuda-sm80
// RUN: %filecheck %s --check-prefix=T0 < %t.0.out
// RUN: %filecheck %s --check-prefix=T1 < %t.1.out
// RUN: %filecheck %s --check-prefix=T3 < %t.3.out
// RUN: %filecheck %s --check-prefix=T4 < %t.4.out
// T0-NOT: tile.
// T0-NOT: sync.
// T0: func.return
// T1-NOT:  scf.for
// T1:      tile.load
// T1-NEXT: sync.commit_group 0
// T1-NEXT: sync.wait_group 0 {pending = 0 : i64}
// T1:      tile.copy
// T1:      tile.store
// T1-NOT:  sync.
// T3-NOT:  scf.for
// T3-COUNT-3: tile.store
// T4:      scf.for %{{.*}} = %c0 to %c2 step %c1
// T4-COUNT-1: sync.wait_group 0 {pending = 1 : i64}
// T4: {{^    }$}}
// T4: sync.wait_group 0 {pending = 0 : i64}
func.func @trips(%a: memref<256x32xf16, "global">, %out: memref<256x32xf16, "global">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant TRIPS : index
  %c32 = arith.constant 32 : index
  %sh = memref.alloc() : memref<32x32xf16, "shared">
  %r = memref.alloc() : memref<32x32xf16, "local">
  scf.for %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c32 : index
    %src = tile.view %a[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.load %src, %sh {tile.stage = 0, tile.order = 0} : memref<32x32xf16, "global">, memref<32x32xf16, "shared">
    tile.copy %sh, %r {tile.stage = 1, tile.order = 1} : memref<32x32xf16, "shared">, memref<32x32xf16, "local">
    %dst = tile.view %out[%off, %c0] {sizes = array<i64: 32, 32>} : memref<256x32xf16, "global"> -> memref<32x32xf16, "global">
    tile.store %r, %dst {tile.stage = 2, tile.order = 2} : memref<32x32xf16, "local">, memref<32x32xf16, "global">
  } {tile.async_stages = [0]}
  func.return
}
