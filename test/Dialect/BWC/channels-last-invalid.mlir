// RUN: bwc-opt %s --split-input-file --verify-diagnostics

// Verifier errors of channels_last convs and pools. Shapes are checked in
// logical (channels-first) order: "filter dim 1" is C/groups, stored at
// physical dim rank-2; result shapes are reported in physical order.

// Tests that a channels-first result shape on a channels_last conv is refused.
func.func @conv_result_order(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) {
  // expected-error @+1 {{expects result shape 1x6x6x16 but got 1x16x6x6}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

// Tests that a channels-first filter on a channels_last conv is refused:
// [16, 3, 3, 3] reads as a 16x3 window over C/groups = 3 channels.
func.func @conv_filter_order(%x: tensor<1x8x8x3xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{expects the filter window to fit spatial dim 0}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last}
      : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>) -> tensor<1x6x6x3xf32>
  return
}

// -----

// Tests that groups divide the channels-last channel dim (the last one).
func.func @conv_groups(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x1x4xf32>) {
  // expected-error @+1 {{expects groups dividing the 3 input channels but got 2}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {channels_last}
      : (tensor<1x8x8x3xf32>, tensor<3x3x1x4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// Tests that a grouped channels_last filter holds C/groups channels at dim
// rank-2.
func.func @conv_filter_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x4xf32>) {
  // expected-error @+1 {{expects filter dim 1 = 2 but got 4}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {channels_last}
      : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// Tests that a transposed channels_last filter holds C at its last dim.
func.func @conv_transposed_filter(%x: tensor<1x4x4x16xf32>, %w: tensor<2x2x4x8xf32>) {
  // expected-error @+1 {{expects filter dim 0 = 16 but got 8}}
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last, transposed}
      : (tensor<1x4x4x16xf32>, tensor<2x2x4x8xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

// Tests that the bias of a channels_last conv has F (the filter's last dim)
// elements.
func.func @conv_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects bias of shape 16 but got 3}}
  %0 = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<3xf32>) -> tensor<1x6x6x16xf32>
  return
}

// -----

// Tests that a channels_last conv keeps the input's rank in its result.
func.func @conv_result_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) {
  // expected-error @+1 {{expects result of rank 4 but got 3}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<6x6x16xf32>
  return
}

// -----

// Tests that a channels-first result shape on a channels_last pool is refused.
func.func @pool_result_order(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects result shape 1x4x4x3 but got 1x3x4x4}}
  %0 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x8x8x3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// Tests that a channels_last pool's window runs over dims 1..rank-2, not
// the channel dim: a 4-wide window does not fit a 3-long spatial dim.
func.func @pool_window(%x: tensor<1x8x3x8xf32>) {
  // expected-error @+1 {{expects the window to fit spatial dim 1}}
  %0 = bwc.pool max %x kernel = [4, 4] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x8x3x8xf32>) -> tensor<1x5x5x8xf32>
  return
}

// -----

// Tests that a channels_last pool keeps the input's rank in its result.
func.func @pool_result_rank(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects result of rank 4 but got 3}}
  %0 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x8x8x3xf32>) -> tensor<4x4x3xf32>
  return
}
