func.func @f(%n: index) {
  %d = memref.alloc(%n) : memref<?x4xf32, "UB">
  func.return
}
