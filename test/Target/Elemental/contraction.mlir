// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that matmul is a K loop per output element, the batch dim of rhs
// broadcast, and `acc_type` honoured (f16 operands summed in f32).
// CHECK-LABEL: func.func private @matmul(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: arith.extf
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func private @matmul(%a: tensor<2x3x4xf16>, %b: tensor<1x4x5xf16>) -> tensor<2x3x5xf16> attributes {bwc.kernel} {
  %0 = bwc.matmul %a, %b {acc_type = f32} : (tensor<2x3x4xf16>, tensor<1x4x5xf16>) -> tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

// Tests that a padded convolution reads a clamped position and adds 0 for
// taps in the padding (select), never a load outside the input.
// CHECK-LABEL: func.func private @conv(
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.cmpi ult
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK: arith.select
func.func private @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> attributes {bwc.kernel} {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// Tests that an average pool counts the taps it divides by in the loop.
// CHECK-LABEL: func.func private @avgpool(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: arith.divf
func.func private @avgpool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> attributes {bwc.kernel} {
  %0 = bwc.pool avg %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] ceil_mode = false count_include_pad = false : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
