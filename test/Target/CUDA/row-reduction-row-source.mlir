// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s

// Tests that a row reduction returning its own input, computed by a
// transpose (ppocr_rec's LayerNorm over a swish activation relaid to
// channels-last, which it also returns), stores that input in row order
// from the cached row: one 16-byte store per thread and group, as the
// normalized result. Until 2026-12-05 the driver took the transpose for a
// relayout of the result and stored it one element per thread at the
// moved index, re-reading its inputs there (cuda-sim: sector efficiency
// 0.378, now 1.000).
// CHECK-LABEL: gpu.func @main_k0_fusion_reduction_bwc
// CHECK-SAME: emitter = "row_reduction"
// CHECK-NOT: memref.store
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}] {alignment = 16 : i64} : memref<4800xf32>, vector<4xf32>
// CHECK-NOT: memref.store
// CHECK: vector.store %{{.*}}, %arg3[%{{.*}}] {alignment = 16 : i64} : memref<4800xf32>, vector<4xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func @main(%x: tensor<1x120x40xf32>, %g: tensor<120xf32>) -> (tensor<1x40x120xf32>, tensor<1x40x120xf32>) {
  %s = bwc.unary sigmoid %x : (tensor<1x120x40xf32>) -> tensor<1x120x40xf32>
  %w = bwc.binary mul %x, %s : (tensor<1x120x40xf32>, tensor<1x120x40xf32>) -> tensor<1x120x40xf32>
  %t = bwc.transpose %w perm = [0, 2, 1] : (tensor<1x120x40xf32>) -> tensor<1x40x120xf32>
  %m = bwc.reduce mean %t axes = [2] keepdims = true : (tensor<1x40x120xf32>) -> tensor<1x40x1xf32>
  %d = bwc.binary sub %t, %m : (tensor<1x40x120xf32>, tensor<1x40x1xf32>) -> tensor<1x40x120xf32>
  %q = bwc.binary mul %d, %d : (tensor<1x40x120xf32>, tensor<1x40x120xf32>) -> tensor<1x40x120xf32>
  %v = bwc.reduce mean %q axes = [2] keepdims = true : (tensor<1x40x120xf32>) -> tensor<1x40x1xf32>
  %r = bwc.unary rsqrt %v : (tensor<1x40x1xf32>) -> tensor<1x40x1xf32>
  %n = bwc.binary mul %d, %r : (tensor<1x40x120xf32>, tensor<1x40x1xf32>) -> tensor<1x40x120xf32>
  %y = bwc.binary mul %n, %g : (tensor<1x40x120xf32>, tensor<120xf32>) -> tensor<1x40x120xf32>
  return %t, %y : tensor<1x40x120xf32>, tensor<1x40x120xf32>
}
