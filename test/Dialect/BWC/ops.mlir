// RUN: bwc-opt %s | bwc-opt | FileCheck %s
// RUN: bwc-opt %s --mlir-print-op-generic | bwc-opt | FileCheck %s

// Round trip of every bwc op in its custom assembly.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xi1>,
                       %i: tensor<4xi64>, %p: tensor<4xi1>) -> tensor<4x8xf32> {
  // CHECK: bwc.constant dense<1.000000e+00> : tensor<8xf32>
  %k = bwc.constant dense<1.0> : tensor<8xf32>
  // CHECK: bwc.unary exp %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = bwc.unary exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: bwc.unary abs %{{.*}} : (tensor<4xi64>) -> tensor<4xi64>
  %1 = bwc.unary abs %i : (tensor<4xi64>) -> tensor<4xi64>
  // CHECK: bwc.unary not %{{.*}} : (tensor<4xi1>) -> tensor<4xi1>
  %2 = bwc.unary not %p : (tensor<4xi1>) -> tensor<4xi1>
  // CHECK: bwc.binary add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = bwc.binary add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: bwc.binary lt %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %4 = bwc.binary lt %3, %k : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: bwc.binary and %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  %5 = bwc.binary and %4, %c : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  // CHECK: bwc.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = bwc.select %5, %3, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: bwc.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
  %7 = bwc.cast %6 : tensor<4x8xf32> to tensor<4x8xf16>
  // CHECK: bwc.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
  %8 = bwc.cast %7 : tensor<4x8xf16> to tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<f32>, tensor<4xi64>) {
  // CHECK: bwc.reduce mean %{{.*}} axes = [1] keepdims = true : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %0 = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: bwc.reduce max %{{.*}} axes = [0, 1] keepdims = false : (tensor<4x8xf32>) -> tensor<f32>
  %1 = bwc.reduce max %x axes = [0, 1] keepdims = false : (tensor<4x8xf32>) -> tensor<f32>
  // CHECK: bwc.arg_reduce argmax %{{.*}} axis = 1 keepdims = false select_last_index = true : (tensor<4x8xf32>) -> tensor<4xi64>
  %2 = bwc.arg_reduce argmax %x axis = 1 keepdims = false select_last_index = true : (tensor<4x8xf32>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4x1xf32>, tensor<f32>, tensor<4xi64>
}

// CHECK-LABEL: func.func @compute
func.func @compute(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>, %x: tensor<1x3x8x8xf32>,
                   %w: tensor<16x3x3x3xf32>, %bias: tensor<16xf32>,
                   %wt: tensor<16x4x2x2xf32>) -> (tensor<2x4x16xf32>, tensor<1x3x4x4xf32>, tensor<1x8x16x16xf32>) {
  // CHECK: bwc.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %0 = bwc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: bwc.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 :
  %1 = bwc.conv %x, %w, %bias strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
      : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  // CHECK: bwc.conv %{{.*}}, %{{.*}} strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {output_padding = array<i64: 0, 0>, transposed}
  %2 = bwc.conv %1, %wt strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {transposed, output_padding = array<i64: 0, 0>}
      : (tensor<1x16x8x8xf32>, tensor<16x4x2x2xf32>) -> tensor<1x8x16x16xf32>
  // CHECK: bwc.pool max %{{.*}} kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false
  %3 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0, %3, %2 : tensor<2x4x16xf32>, tensor<1x3x4x4xf32>, tensor<1x8x16x16xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<4x8xf32>, %y: tensor<3x8xf32>, %i: tensor<2x2xi64>,
                         %img: tensor<1x3x4x4xf32>) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<2x4x8xf32>, tensor<2x8xf32>, tensor<7x8xf32>, tensor<4x10xf32>, tensor<2x2x8xf32>, tensor<1x3x8x8xf32>) {
  // CHECK: bwc.transpose %{{.*}} perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK: bwc.reshape %{{.*}} : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = bwc.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK: bwc.broadcast %{{.*}} : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %2 = bwc.broadcast %x : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: bwc.slice %{{.*}} starts = [3, 0] steps = [-2, 1] : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %3 = bwc.slice %x starts = [3, 0] steps = [-2, 1] : (tensor<4x8xf32>) -> tensor<2x8xf32>
  // CHECK: bwc.concat %{{.*}}, %{{.*}} axis = 0 : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<7x8xf32>
  %4 = bwc.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<7x8xf32>
  // CHECK: bwc.pad reflect %{{.*}} pads = [0, 1, 0, 1] value = 0.000000e+00 : f32 : (tensor<4x8xf32>) -> tensor<4x10xf32>
  %5 = bwc.pad reflect %x pads = [0, 1, 0, 1] value = 0.0 : f32 : (tensor<4x8xf32>) -> tensor<4x10xf32>
  // CHECK: bwc.gather %{{.*}}[%{{.*}}] axis = 0 : (tensor<4x8xf32>, tensor<2x2xi64>) -> tensor<2x2x8xf32>
  %6 = bwc.gather %x[%i] axis = 0 : (tensor<4x8xf32>, tensor<2x2xi64>) -> tensor<2x2x8xf32>
  // CHECK: bwc.resize linear %{{.*}} scales = [1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00] coord = half_pixel nearest_mode = round_prefer_floor
  %7 = bwc.resize linear %img scales = [1.0, 1.0, 2.0, 2.0] coord = half_pixel nearest_mode = round_prefer_floor
      : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8x4xf32>, tensor<32xf32>, tensor<2x4x8xf32>, tensor<2x8xf32>, tensor<7x8xf32>, tensor<4x10xf32>, tensor<2x2x8xf32>, tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @wide_types_and_cubic
func.func @wide_types_and_cubic(%u: tensor<4xui32>, %img: tensor<1x3x4x4xf32>) -> (tensor<4xi16>, tensor<1x3x8x8xf32>) {
  // CHECK: bwc.cast %{{.*}} : tensor<4xui32> to tensor<4xi16>
  %0 = bwc.cast %u : tensor<4xui32> to tensor<4xi16>
  // CHECK: bwc.resize cubic %{{.*}} {cubic_coeff_a = -7.500000e-01 : f64, exclude_outside}
  %1 = bwc.resize cubic %img scales = [1.0, 1.0, 2.0, 2.0] coord = half_pixel nearest_mode = floor
      {cubic_coeff_a = -0.75 : f64, exclude_outside} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1 : tensor<4xi16>, tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @fusion
func.func @fusion(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: bwc.fusion loop(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: bwc.yield %{{.*}} : tensor<4x8xf32>
  %r = bwc.fusion loop (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = bwc.binary add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    bwc.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// Tests that the accumulator type of a low-precision contraction round-trips.
// CHECK-LABEL: func.func @accumulator
func.func @accumulator(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf16> {
  // CHECK: bwc.matmul %{{.*}}, %{{.*}} {acc_type = f32} : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  %0 = bwc.matmul %a, %b {acc_type = f32} : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  return %0 : tensor<4x2xf16>
}
