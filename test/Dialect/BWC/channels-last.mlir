// RUN: bwc-opt %s --split-input-file | bwc-opt --split-input-file | FileCheck %s
// RUN: bwc-opt %s --split-input-file --mlir-print-op-generic | bwc-opt --split-input-file | FileCheck %s

// Round trip of channels_last convolutions and pools: data [N, D..., C],
// filter [K..., C/groups, F] (transposed: [K..., F/groups, C]).

// Tests that a direct channels_last conv with bias, pads and strides verifies.
// CHECK-LABEL: func.func @direct
// CHECK: bwc.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [2, 1] dilations = [1, 2] pads = [1, 0, 1, 2] groups = 1 {channels_last} : (tensor<1x8x9x3xf32>, tensor<3x3x3x16xf32>, tensor<16xf32>) -> tensor<1x4x7x16xf32>
func.func @direct(%x: tensor<1x8x9x3xf32>, %w: tensor<3x3x3x16xf32>,
                  %b: tensor<16xf32>) -> tensor<1x4x7x16xf32> {
  %0 = bwc.conv %x, %w, %b strides = [2, 1] dilations = [1, 2] pads = [1, 0, 1, 2] groups = 1 {channels_last}
      : (tensor<1x8x9x3xf32>, tensor<3x3x3x16xf32>, tensor<16xf32>) -> tensor<1x4x7x16xf32>
  return %0 : tensor<1x4x7x16xf32>
}

// -----

// Tests that grouped and depthwise channels_last convs verify (filter
// [K..., C/groups, F]).
// CHECK-LABEL: func.func @grouped
// CHECK: groups = 2 {channels_last} : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x4x4x6xf32>
// CHECK: groups = 8 {channels_last} : (tensor<2x8x8x8xf32>, tensor<3x3x1x8xf32>) -> tensor<2x8x8x8xf32>
func.func @grouped(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x2x6xf32>,
                   %y: tensor<2x8x8x8xf32>, %dw: tensor<3x3x1x8xf32>)
    -> (tensor<1x4x4x6xf32>, tensor<2x8x8x8xf32>) {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {channels_last}
      : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x4x4x6xf32>
  %1 = bwc.conv %y, %dw strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 8 {channels_last}
      : (tensor<2x8x8x8xf32>, tensor<3x3x1x8xf32>) -> tensor<2x8x8x8xf32>
  return %0, %1 : tensor<1x4x4x6xf32>, tensor<2x8x8x8xf32>
}

// -----

// Tests that a transposed channels_last conv verifies (filter
// [K..., F/groups, C]) with output_padding.
// CHECK-LABEL: func.func @transposed
// CHECK: groups = 2 {channels_last, output_padding = array<i64: 1, 0>, transposed} : (tensor<1x4x4x16xf32>, tensor<3x2x4x16xf32>) -> tensor<1x10x8x8xf32>
func.func @transposed(%x: tensor<1x4x4x16xf32>, %w: tensor<3x2x4x16xf32>) -> tensor<1x10x8x8xf32> {
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {channels_last, transposed, output_padding = array<i64: 1, 0>}
      : (tensor<1x4x4x16xf32>, tensor<3x2x4x16xf32>) -> tensor<1x10x8x8xf32>
  return %0 : tensor<1x10x8x8xf32>
}

// -----

// Tests that 1-d and 3-d channels_last convs and pools verify.
// CHECK-LABEL: func.func @ranks
// CHECK: groups = 1 {channels_last} : (tensor<1x10x3xf32>, tensor<3x3x5xf32>) -> tensor<1x8x5xf32>
// CHECK: bwc.pool avg %{{.*}} kernel = [2, 2, 2] {{.*}} {channels_last} : (tensor<1x4x4x4x3xf32>) -> tensor<1x2x2x2x3xf32>
func.func @ranks(%x: tensor<1x10x3xf32>, %w: tensor<3x3x5xf32>, %v: tensor<1x4x4x4x3xf32>)
    -> (tensor<1x8x5xf32>, tensor<1x2x2x2x3xf32>) {
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 {channels_last}
      : (tensor<1x10x3xf32>, tensor<3x3x5xf32>) -> tensor<1x8x5xf32>
  %1 = bwc.pool avg %v kernel = [2, 2, 2] strides = [2, 2, 2] dilations = [1, 1, 1] pads = [0, 0, 0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x4x4x4x3xf32>) -> tensor<1x2x2x2x3xf32>
  return %0, %1 : tensor<1x8x5xf32>, tensor<1x2x2x2x3xf32>
}

// -----

// Tests that a channels_last max pool with pads and ceil_mode verifies.
// CHECK-LABEL: func.func @pool
// CHECK: bwc.pool max %{{.*}} kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] ceil_mode = true count_include_pad = false {channels_last} : (tensor<1x9x7x3xf32>) -> tensor<1x5x4x3xf32>
func.func @pool(%x: tensor<1x9x7x3xf32>) -> tensor<1x5x4x3xf32> {
  %0 = bwc.pool max %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0]
      ceil_mode = true count_include_pad = false {channels_last} : (tensor<1x9x7x3xf32>) -> tensor<1x5x4x3xf32>
  return %0 : tensor<1x5x4x3xf32>
}
