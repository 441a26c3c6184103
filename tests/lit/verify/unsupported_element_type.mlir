// Issue 28 §1 (audit: a memref.alloc of f8E4M3FN, complex, f80, tf32, index or vector elements was
// an internal error, exit 3, in every command - the capacity check sized it first): a located
// error, exit 2, in opt, sim and equiv alike.
// RUN: not %tilesched opt %s --target ascend-a2 2>&1 | %filecheck %s
// RUN: not %tilesched sim %s 2>&1 | %filecheck %s
// RUN: not %tilesched equiv %s %s 2>&1 | %filecheck %s
// RUN: sed -e 's/f8E4M3FN/complex<f32>/' %s | not %tilesched opt - 2>&1 | %filecheck %s --check-prefix=COMPLEX
// RUN: sed -e 's/f8E4M3FN/tf32/' %s | not %tilesched opt - 2>&1 | %filecheck %s --check-prefix=TF32
// RUN: sed -e 's/f8E4M3FN/index/' %s | not %tilesched opt - 2>&1 | %filecheck %s --check-prefix=INDEX
// RUN: sed -e 's/f8E4M3FN/vector<4xf32>/' %s | not %tilesched opt - 2>&1 | %filecheck %s --check-prefix=VECTOR
// RUN: sed -e 's/f8E4M3FN/f80/' %s | not %tilesched opt - 2>&1 | %filecheck %s --check-prefix=F80
// CHECK-NOT: internal error
// CHECK: unsupported_element_type.mlir:[[# @LINE + 7]]:3: error: %u: element type f8E4M3FN of memref<16x16xf8E4M3FN, "UB"> is not supported; use one of f16, bf16, f32, f64, i8, i16, i32, i64, i1
// COMPLEX: <stdin>:[[# @LINE + 6]]:3: error: %u: element type complex<f32> of
// TF32: <stdin>:[[# @LINE + 5]]:3: error: %u: element type tf32 of
// INDEX: <stdin>:[[# @LINE + 4]]:3: error: %u: element type index of
// VECTOR: <stdin>:[[# @LINE + 3]]:3: error: %u: element type vector<4xf32> of
// F80: <stdin>:[[# @LINE + 2]]:3: error: %u: element type f80 of
func.func @k(%a: memref<16x16xf32, "GM">) {
  %u = memref.alloc() : memref<16x16xf8E4M3FN, "UB">
  func.return
}
