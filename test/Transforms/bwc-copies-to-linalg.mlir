// RUN: bwc-opt %s --bwc-copies-to-linalg | FileCheck %s

// Tests that a strided memref.copy becomes linalg.copy (which lowers to
// loops instead of a call into MLIR's C runner utilities).
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<2x2xf32, strided<[4, 1]>>) outs(%{{.*}} : memref<2x2xf32>)
func.func @strided(%a: memref<2x2xf32, strided<[4, 1]>>, %b: memref<2x2xf32>) {
  memref.copy %a, %b : memref<2x2xf32, strided<[4, 1]>> to memref<2x2xf32>
  return
}
