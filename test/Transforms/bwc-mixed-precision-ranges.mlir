// RUN: bwc-opt %s --bwc-mixed-precision | FileCheck %s
// RUN: bwc-opt %s --bwc-mixed-precision="precision=bf16" | FileCheck %s --check-prefix=BF16

// Tests the ranges --calibrate records (`bwc.range`, {max, median} per
// result or argument): a matmul whose result reaches 1e5 overflows fp16 and
// stays f32; a matmul reading an argument whose median magnitude (1e-6) is
// below fp16's smallest normal stays f32 (its operand underflows); a matmul
// in range and one without a recorded range take f16; an op the validation
// search marked (`bwc.keep_f32` before the pass) stays f32. Each kept op
// records its reason. In bf16 (fp32's exponent range) only the marked op
// stays f32.
// CHECK-LABEL: func.func @main
// CHECK: bwc.matmul {{.*}}bwc.keep_f32 = "overflow: |x| reaches 1.00e+05, over half fp16's largest value 6.55e+04"{{.*}} -> tensor<4x16xf32>
// CHECK: bwc.matmul {{.*}}bwc.keep_f32 = "operand 0: underflow: median nonzero |x| 1.00e-06 is below fp16's smallest normal 6.10e-05"{{.*}} -> tensor<4x16xf32>
// CHECK: bwc.matmul {{.*}}acc_type = f32{{.*}} -> tensor<4x16xf16>
// CHECK-NOT: keep_f32
// CHECK: bwc.matmul {{.*}}acc_type = f32{{.*}} -> tensor<4x16xf16>
// CHECK: bwc.matmul {{.*}}bwc.keep_f32 = "validation{{.*}} -> tensor<4x16xf32>
// BF16-LABEL: func.func @main
// BF16-NOT: keep_f32
// BF16-COUNT-4: -> tensor<4x16xbf16>
// BF16: bwc.matmul {{.*}}bwc.keep_f32 = "validation{{.*}} -> tensor<4x16xf32>
func.func @main(%x: tensor<4x8xf32>, %tiny: tensor<4x8xf32> {bwc.range = {max = 1.0e-5 : f64, median = 1.0e-6 : f64}}) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = bwc.constant dense<0.5> : tensor<8x16xf32>
  %big = bwc.matmul %x, %w {bwc.range = [{max = 1.0e5 : f64, median = 3.0e4 : f64}]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %small = bwc.matmul %tiny, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %fine = bwc.matmul %x, %w {bwc.range = [{max = 8.0 : f64, median = 0.5 : f64}]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %none = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %marked = bwc.matmul %x, %w {bwc.keep_f32 = "validation: a test"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = bwc.unary neg %big : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %b = bwc.unary neg %small : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = bwc.unary neg %fine : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %d = bwc.unary neg %none : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = bwc.unary neg %marked : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %a, %b, %c, %d, %e : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
