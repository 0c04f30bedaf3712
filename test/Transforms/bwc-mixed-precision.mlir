// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision="precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision="low-io=true" | FileCheck %s --check-prefix=IO

// Tests allow (matmuls in f16 summed in f32, weights converted at compile
// time), the elementwise rule (the bias add, read only by relu, stays an f32
// register value; relu computes in f32 and is rounded to f16 once where the
// second matmul reads it) and the f32 output behind a boundary cast; with
// low-io the input and the output are f16 themselves.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK-DAG: %[[W:.*]] = bwc.constant dense<5.000000e-01> : tensor<8x16xf16>
// CHECK-DAG: %[[W2:.*]] = bwc.constant dense<2.500000e-01> : tensor<16x16xf16>
// CHECK-DAG: %[[B:.*]] = bwc.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK-DAG: %[[XH:.*]] = bwc.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[M:.*]] = bwc.matmul %[[XH]], %[[W]] {acc_type = f32} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK: %[[MU:.*]] = bwc.cast %[[M]] : tensor<4x16xf16> to tensor<4x16xf32>
// CHECK: %[[A:.*]] = bwc.binary add %[[MU]], %[[B]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK: %[[R:.*]] = bwc.unary relu %[[A]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[RH:.*]] = bwc.cast %[[R]] : tensor<4x16xf32> to tensor<4x16xf16>
// CHECK: %[[M2:.*]] = bwc.matmul %[[RH]], %[[W2]] {acc_type = f32} : (tensor<4x16xf16>, tensor<16x16xf16>) -> tensor<4x16xf16>
// CHECK: %[[M2U:.*]] = bwc.cast %[[M2]] : tensor<4x16xf16> to tensor<4x16xf32>
// CHECK: %[[N:.*]] = bwc.unary neg %[[M2U]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[N]] : tensor<4x16xf32>
// BF16: bwc.matmul {{.*}} {acc_type = f32} {{.*}} -> tensor<4x16xbf16>
// IO-LABEL: func.func @main
// IO-SAME: (%[[X:.*]]: tensor<4x8xf16>) -> tensor<4x16xf16>
// IO: bwc.matmul %[[X]], %{{.*}} {acc_type = f32}
// IO: %[[N:.*]] = bwc.unary neg %{{.*}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// IO: %[[NH:.*]] = bwc.cast %[[N]] : tensor<4x16xf32> to tensor<4x16xf16>
// IO: return %[[NH]] : tensor<4x16xf16>
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = bwc.constant dense<0.5> : tensor<8x16xf32>
  %w2 = bwc.constant dense<0.25> : tensor<16x16xf32>
  %b = bwc.constant dense<1.0> : tensor<16xf32>
  %m = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = bwc.binary add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %r = bwc.unary relu %a : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = bwc.matmul %r, %w2 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %n = bwc.unary neg %m2 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// Tests deny: exp and the sum reduction compute in f32 on their input cast
// up; the subtraction computes in f16 because the matmul result it reads
// is also read by non-elementwise ops (stored anyway: widening it would
// store an f32 copy); the division computes in f32 and is rounded to f16
// once for the second matmul; the f16 -> f32 -> f16 round trip folds away,
// f32 -> f16 -> f32 does not.
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
// CHECK: %[[M2U:.*]] = bwc.cast %[[M2]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: bwc.binary add %[[M2U]], %[[M2U]] {{.*}} -> tensor<4x4xf32>
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

// -----

// Tests range safety: a weight fp16 cannot hold (1e5 overflows, 1e-9
// flushes to zero) is never converted and its matmul stays f32, while bf16
// holds both; an f32 weight that fits is converted.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[BIG:.*]] = bwc.constant dense<1.000000e+05> : tensor<4x8xf32>
// CHECK-DAG: %[[TINY:.*]] = bwc.constant dense<9.99999971E-10> : tensor<4x8xf32>
// CHECK-DAG: %[[TWO:.*]] = bwc.constant dense<2.000000e+00> : tensor<4x8xf16>
// CHECK: bwc.matmul %{{.*}}, %[[BIG]] : {{.*}} -> tensor<2x8xf32>
// CHECK: bwc.matmul %{{.*}}, %[[TINY]] : {{.*}} -> tensor<2x8xf32>
// CHECK: bwc.matmul %{{.*}}, %[[TWO]] {acc_type = f32} : {{.*}} -> tensor<2x8xf16>
// BF16-COUNT-3: bwc.matmul {{.*}} {acc_type = f32} : (tensor<2x4xbf16>, tensor<4x8xbf16>) -> tensor<2x8xbf16>
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %big = bwc.constant dense<1.0e5> : tensor<4x8xf32>
  %tiny = bwc.constant dense<1.0e-9> : tensor<4x8xf32>
  %two = bwc.constant dense<2.0> : tensor<4x8xf32>
  %a = bwc.matmul %x, %big : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %t = bwc.matmul %x, %tiny : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %s = bwc.matmul %x, %two : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %r1 = bwc.unary neg %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r2 = bwc.unary neg %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r3 = bwc.unary neg %s : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r1, %r2, %r3 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Tests the overflow heuristics: a square, a division by a computed value
// and a reciprocal compute in f32 on f16 inputs; a division by a constant
// follows in f16 (its operand is also read by the pool, so it is stored in
// f16 anyway); an average pool in f16 sums in f32.
// CHECK-LABEL: func.func @main
// CHECK: %[[M:.*]] = bwc.matmul {{.*}} -> tensor<1x2x4x4xf16>
// CHECK: %[[MU:.*]] = bwc.cast %[[M]] : tensor<1x2x4x4xf16> to tensor<1x2x4x4xf32>
// CHECK: bwc.binary mul %[[MU]], %[[MU]] {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: bwc.binary div %[[MU]], %[[MU]] {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: bwc.unary reciprocal %[[MU]] {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: bwc.binary div %[[M]], %{{.*}} : (tensor<1x2x4x4xf16>, tensor<f16>) -> tensor<1x2x4x4xf16>
// CHECK: bwc.pool avg %[[M]] {{.*}} {acc_type = f32} : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
func.func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) {
  %c = bwc.constant dense<3.0> : tensor<f32>
  %m = bwc.matmul %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %sq = bwc.binary mul %m, %m : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = bwc.binary div %m, %m : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = bwc.unary reciprocal %m : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = bwc.binary div %m, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %p = bwc.pool avg %m kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %sq2 = bwc.unary neg %sq : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q2 = bwc.unary neg %q : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r2 = bwc.unary neg %r : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d2 = bwc.unary neg %d : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p2 = bwc.unary neg %p : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %sq2, %q2, %r2, %d2, %p2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>
}

// -----

// Tests that a program declared in f16 is left as it is: its output op is
// not widened to f32 (only values the pass lowered are cast back).
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.cast
// CHECK: bwc.binary max %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
func.func @main(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %m = bwc.binary max %x, %y : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %m : tensor<4xf16>
}
