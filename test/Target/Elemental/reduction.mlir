// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that a softmax-like reduction kernel runs the row driver: per row
// the max, then the sum (reading the bound max), then the row's outputs.
// CHECK-LABEL: func.func private @softmax(
// CHECK-SAME: bwc.elemental = "rows"
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[MAX:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: scf.for
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: memref.store
func.func private @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = bwc.unary exp %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = bwc.binary div %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Tests that an f16 mean accumulates in f32 and rounds once.
// CHECK-LABEL: func.func private @mean_f16(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func private @mean_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> attributes {bwc.kernel} {
  %0 = bwc.reduce mean %x axes = [1] keepdims = false : (tensor<4x8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Tests that argmax carries the best value and index through the loop.
// CHECK-LABEL: func.func private @argmax(
// CHECK-SAME: bwc.elemental = "elements"
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK: arith.cmpf ogt
func.func private @argmax(%x: tensor<3x5xf32>) -> tensor<3xi64> attributes {bwc.kernel} {
  %0 = bwc.arg_reduce argmax %x axis = 1 keepdims = false select_last_index = false : (tensor<3x5xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
