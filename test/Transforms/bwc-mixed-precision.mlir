// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision="precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision="contraction-f32=true" | FileCheck %s --check-prefix=ACC

// Tests allow (matmul in f16, weight converted at compile time), follow
// (add and relu stay f16) and the f32 output behind a boundary cast.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK-DAG: %[[W:.*]] = bwc.constant dense<5.000000e-01> : tensor<8x16xf16>
// CHECK-DAG: %[[B:.*]] = bwc.constant dense<1.000000e+00> : tensor<16xf16>
// CHECK-DAG: %[[XH:.*]] = bwc.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[M:.*]] = bwc.matmul %[[XH]], %[[W]] : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK: %[[A:.*]] = bwc.binary add %[[M]], %[[B]] : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
// CHECK: %[[R:.*]] = bwc.unary relu %[[A]] : (tensor<4x16xf16>) -> tensor<4x16xf16>
// CHECK: %[[RU:.*]] = bwc.cast %[[R]] : tensor<4x16xf16> to tensor<4x16xf32>
// CHECK: %[[N:.*]] = bwc.unary neg %[[RU]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[N]] : tensor<4x16xf32>
// BF16: bwc.matmul {{.*}} -> tensor<4x16xbf16>
// ACC: %[[WA:.*]] = bwc.cast %{{.*}} : tensor<8x16xf16> to tensor<8x16xf32>
// ACC: %[[MA:.*]] = bwc.matmul %{{.*}}, %[[WA]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// ACC: bwc.cast %[[MA]] : tensor<4x16xf32> to tensor<4x16xf16>
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = bwc.constant dense<0.5> : tensor<8x16xf32>
  %b = bwc.constant dense<1.0> : tensor<16xf32>
  %m = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = bwc.binary add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %r = bwc.unary relu %a : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = bwc.unary neg %r : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// Tests deny: exp and the sum reduction compute in f32 on their input cast
// up, the division then follows its f32 operands; the f16 -> f32 -> f16
// round trip before the second matmul folds away, f32 -> f16 -> f32 does not.
// CHECK-LABEL: func.func @main
// CHECK: %[[M:.*]] = bwc.matmul {{.*}} -> tensor<4x4xf16>
// CHECK: %[[MX:.*]] = bwc.reduce max %[[M]] {{.*}} -> tensor<4x1xf16>
// CHECK: %[[S:.*]] = bwc.binary sub %[[M]], %[[MX]] {{.*}} -> tensor<4x4xf16>
// CHECK: %[[SU:.*]] = bwc.cast %[[S]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: %[[E:.*]] = bwc.unary exp %[[SU]] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[SUM:.*]] = bwc.reduce sum %[[E]] {{.*}} -> tensor<4x1xf32>
// CHECK: %[[D:.*]] = bwc.binary div %[[E]], %[[SUM]] {{.*}} -> tensor<4x4xf32>
// CHECK: %[[DH:.*]] = bwc.cast %[[D]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[M2:.*]] = bwc.matmul %[[DH]], %[[M]] {{.*}} -> tensor<4x4xf16>
// CHECK: %[[MU:.*]] = bwc.cast %[[M2]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: bwc.binary add %[[MU]], %[[MU]] {{.*}} -> tensor<4x4xf32>
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = bwc.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = bwc.reduce max %m axes = [1] keepdims = true : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %s = bwc.binary sub %m, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = bwc.unary exp %s : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %d = bwc.binary div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %m2 = bwc.matmul %d, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = bwc.binary add %m2, %m2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}
