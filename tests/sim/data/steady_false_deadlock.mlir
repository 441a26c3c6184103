// Copied from /work/shared/repro/steady_false_deadlock.mlir (issue 24, found 2026-11-26); the tests vary its
// loop bounds (%cI, %cJ, %cK). Its original header follows.
// Steady-state extrapolation disagrees with full simulation (found 2026-11-26).
// A double-buffered GEMM synchronized by insert-sync, loop bounds 8 x 1 x 10 (M x N x K/8 steps).
// tilesched sim FILE        -> deadlock ("waits for flag MTE1->M event 7 ... but it was set N time(s)"), 430,661 cycles, bound 315,200
// tilesched sim FILE --full -> no finding, 689,056 cycles, bound 504,320
// docs/simulator.md promises the same cycles, bound and verdicts in both modes. Bounds 6 x 1 x 12 and 8 x 1 x 8 agree.
builtin.module {
  func.func @gemm_a2a3_6144(%a: memref<1536x6144xf16, "GM">, %b: memref<6144x1024xf16, "GM">, %c: memref<1536x1024xf32, "GM">) {
    %c0 = arith.constant 0 : index
    %cI = arith.constant 8 : index
    %cJ = arith.constant 1 : index
    %cK = arith.constant 10 : index
    %c12 = arith.constant 12 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %c64 = arith.constant 64 : index
    %c192 = arith.constant 192 : index
    %aMatTile = memref.alloc() : memref<2x128x256xf16, "L1">
    %bMatTile = memref.alloc() : memref<2x256x256xf16, "L1">
    %aTile = memref.alloc() : memref<2x128x64xf16, "L0A">
    %bTile = memref.alloc() : memref<2x64x256xf16, "L0B">
    %cTile = memref.alloc() : memref<128x256xf32, "L0C">
    scf.for %i = %c0 to %cI step %c1 {
      %row = arith.muli %i, %c128 : index
      sync.barrier_all
      scf.for %j = %c0 to %cJ step %c1 {
        %col = arith.muli %j, %c256 : index
        sync.barrier_all
        sync.set_flag "MTE1" -> "MTE2", 7
        sync.set_flag "M" -> "MTE1", 7
        sync.set_flag "MTE1" -> "M", 7
        scf.for %kk = %c0 to %cK step %c1 {
          %first = arith.cmpi eq, %kk, %c0 : index
          %0 = arith.muli %kk, %c512 : index
          %1 = tile.view %a[%row, %0] {sizes = array<i64: 128, 256>} : memref<1536x6144xf16, "GM"> -> memref<128x256xf16, "GM">
          %2 = tile.slot %aMatTile[%c0] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          sync.wait_flag "MTE1" -> "MTE2", 7
          tile.load %1, %2 : memref<128x256xf16, "GM">, memref<128x256xf16, "L1">
          sync.set_flag "MTE2" -> "MTE1", 0
          %3 = tile.view %b[%0, %col] {sizes = array<i64: 256, 256>} : memref<6144x1024xf16, "GM"> -> memref<256x256xf16, "GM">
          %4 = tile.slot %bMatTile[%c0] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          tile.load %3, %4 : memref<256x256xf16, "GM">, memref<256x256xf16, "L1">
          sync.set_flag "MTE2" -> "MTE1", 1
          %5 = tile.slot %aMatTile[%c0] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %6 = tile.view %5[%c0, %c0] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %7 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 7
          sync.wait_flag "MTE2" -> "MTE1", 0
          tile.copy %6, %7 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %8 = tile.slot %bMatTile[%c0] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %9 = tile.view %8[%c0, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %10 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE2" -> "MTE1", 1
          tile.copy %9, %10 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 0
          sync.wait_flag "MTE1" -> "M", 7
          sync.wait_flag "MTE1" -> "M", 0
          scf.if %first {
            %11 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
            %12 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
            tile.matmul %11, %12, %cTile : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          } else {
            %13 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
            %14 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
            tile.matmul %13, %14, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          }
          sync.set_flag "M" -> "MTE1", 0
          %15 = arith.muli %kk, %c512 : index
          %16 = tile.slot %aMatTile[%c0] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %17 = tile.view %16[%c0, %c64] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %18 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          tile.copy %17, %18 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %19 = tile.slot %bMatTile[%c0] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %20 = tile.view %19[%c64, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %21 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %20, %21 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 1
          %22 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %23 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 1
          tile.matmul %22, %23, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 1
          %24 = arith.muli %kk, %c512 : index
          %25 = tile.slot %aMatTile[%c0] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %26 = tile.view %25[%c0, %c128] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %27 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 0
          tile.copy %26, %27 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %28 = tile.slot %bMatTile[%c0] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %29 = tile.view %28[%c128, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %30 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %29, %30 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 0
          %31 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %32 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 0
          tile.matmul %31, %32, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 0
          %33 = arith.muli %kk, %c512 : index
          %34 = tile.slot %aMatTile[%c0] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %35 = tile.view %34[%c0, %c192] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %36 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 1
          tile.copy %35, %36 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %37 = tile.slot %bMatTile[%c0] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %38 = tile.view %37[%c192, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %39 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %38, %39 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 1
          %40 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %41 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 1
          tile.matmul %40, %41, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 1
          %42 = arith.muli %kk, %c512 : index
          %43 = arith.addi %42, %c256 : index
          %44 = tile.view %a[%row, %43] {sizes = array<i64: 128, 256>} : memref<1536x6144xf16, "GM"> -> memref<128x256xf16, "GM">
          %45 = tile.slot %aMatTile[%c1] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          tile.load %44, %45 : memref<128x256xf16, "GM">, memref<128x256xf16, "L1">
          sync.set_flag "MTE2" -> "MTE1", 2
          %46 = tile.view %b[%43, %col] {sizes = array<i64: 256, 256>} : memref<6144x1024xf16, "GM"> -> memref<256x256xf16, "GM">
          %47 = tile.slot %bMatTile[%c1] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          tile.load %46, %47 : memref<256x256xf16, "GM">, memref<256x256xf16, "L1">
          sync.set_flag "MTE2" -> "MTE1", 3
          %48 = tile.slot %aMatTile[%c1] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %49 = tile.view %48[%c0, %c0] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %50 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 0
          sync.wait_flag "MTE2" -> "MTE1", 2
          tile.copy %49, %50 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %51 = tile.slot %bMatTile[%c1] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %52 = tile.view %51[%c0, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %53 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE2" -> "MTE1", 3
          tile.copy %52, %53 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 0
          %54 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %55 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 0
          tile.matmul %54, %55, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 0
          %56 = arith.muli %kk, %c512 : index
          %57 = arith.addi %56, %c256 : index
          %58 = tile.slot %aMatTile[%c1] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %59 = tile.view %58[%c0, %c64] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %60 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 1
          tile.copy %59, %60 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %61 = tile.slot %bMatTile[%c1] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %62 = tile.view %61[%c64, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %63 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %62, %63 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 1
          %64 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %65 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 1
          tile.matmul %64, %65, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 1
          %66 = arith.muli %kk, %c512 : index
          %67 = arith.addi %66, %c256 : index
          %68 = tile.slot %aMatTile[%c1] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %69 = tile.view %68[%c0, %c128] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %70 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 0
          tile.copy %69, %70 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %71 = tile.slot %bMatTile[%c1] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %72 = tile.view %71[%c128, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %73 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %72, %73 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 0
          %74 = tile.slot %aTile[%c0] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %75 = tile.slot %bTile[%c0] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 0
          tile.matmul %74, %75, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          %76 = arith.muli %kk, %c512 : index
          %77 = arith.addi %76, %c256 : index
          %78 = tile.slot %aMatTile[%c1] : memref<2x128x256xf16, "L1"> -> memref<128x256xf16, "L1">
          %79 = tile.view %78[%c0, %c192] {sizes = array<i64: 128, 64>} : memref<128x256xf16, "L1"> -> memref<128x64xf16, "L1">
          %80 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          sync.wait_flag "M" -> "MTE1", 1
          tile.copy %79, %80 : memref<128x64xf16, "L1">, memref<128x64xf16, "L0A">
          %81 = tile.slot %bMatTile[%c1] : memref<2x256x256xf16, "L1"> -> memref<256x256xf16, "L1">
          %82 = tile.view %81[%c192, %c0] {sizes = array<i64: 64, 256>} : memref<256x256xf16, "L1"> -> memref<64x256xf16, "L1">
          %83 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          tile.copy %82, %83 : memref<64x256xf16, "L1">, memref<64x256xf16, "L0B">
          sync.set_flag "MTE1" -> "M", 1
          sync.set_flag "MTE1" -> "MTE2", 7
          sync.set_flag "MTE1" -> "M", 7
          %84 = tile.slot %aTile[%c1] : memref<2x128x64xf16, "L0A"> -> memref<128x64xf16, "L0A">
          %85 = tile.slot %bTile[%c1] : memref<2x64x256xf16, "L0B"> -> memref<64x256xf16, "L0B">
          sync.wait_flag "MTE1" -> "M", 1
          tile.matmul %84, %85, %cTile {accumulate} : memref<128x64xf16, "L0A">, memref<64x256xf16, "L0B">, memref<128x256xf32, "L0C">
          sync.set_flag "M" -> "MTE1", 7
        }
        sync.wait_flag "MTE1" -> "MTE2", 7
        sync.wait_flag "M" -> "MTE1", 7
        sync.wait_flag "MTE1" -> "M", 7
        sync.barrier_all
        %86 = tile.view %c[%row, %col] {sizes = array<i64: 128, 256>} : memref<1536x1024xf32, "GM"> -> memref<128x256xf32, "GM">
        tile.store %cTile, %86 : memref<128x256xf32, "L0C">, memref<128x256xf32, "GM">
        sync.barrier_all
      }
      sync.barrier_all
      sync.barrier_all
    }
    func.return
  }
}
