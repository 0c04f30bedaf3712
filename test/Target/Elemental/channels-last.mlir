// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that a channels_last conv element loops over the window outside
// and the group's input channels innermost, reading the NHWC input at
// c + 2 * (w + 5 * h) (the channel loop's step is one element) and the
// [K..., C, F] filter at f + 4 * (c + ...).
// CHECK-LABEL: func.func private @conv_last(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %c2{{.*}} iter_args
// CHECK: %[[W:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: %[[I:.*]] = arith.addi %[[C]], %[[W]] : index
// CHECK: memref.load %arg0
// CHECK: arith.muli %[[C]], %c4{{.*}} : index
// CHECK: memref.load %arg1
func.func private @conv_last(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32> attributes {bwc.kernel} {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {channels_last} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32>
  return %0 : tensor<1x5x5x4xf32>
}

// -----

// Tests that the channels-first conv keeps its order: channels outside,
// the window inside.
// CHECK-LABEL: func.func private @conv_first(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args
// CHECK: memref.load %arg0
func.func private @conv_first(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32> attributes {bwc.kernel} {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// Tests that a channels_last max pool element reads its own channel (the
// output's last index) at every tap: the input address adds the output
// channel, the window moves by whole pixels (3 channels).
// CHECK-LABEL: func.func private @pool_last(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %{{.*}} {
// CHECK: scf.for %[[OC:.*]] = %{{.*}} to %c3 step %{{.*}} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} iter_args
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %c3{{.*}} : index
// CHECK: arith.addi %[[OC]], %[[P]] : index
// CHECK: memref.load %arg0
func.func private @pool_last(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> attributes {bwc.kernel} {
  %0 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}
