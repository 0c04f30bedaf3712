// RUN: bwc-opt %s --split-input-file --verify-diagnostics

// Tests that a unary op keeps its operand type.
func.func @unary_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects result type 'tensor<4xf32>' but got 'tensor<4xf16>'}}
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// Tests that arithmetic unary functions reject i1.
func.func @unary_numeric(%x: tensor<4xi1>) {
  // expected-error @+1 {{expects a numeric operand but got 'i1'}}
  %0 = bwc.unary abs %x : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

// Tests that 'not' takes i1 only.
func.func @unary_not(%x: tensor<4xi32>) {
  // expected-error @+1 {{expects an i1 operand for 'not' but got 'i32'}}
  %0 = bwc.unary not %x : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// Tests that transcendental functions take floats only.
func.func @unary_float(%x: tensor<4xi64>) {
  // expected-error @+1 {{expects a float operand for 'exp' but got 'i64'}}
  %0 = bwc.unary exp %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

// Tests that binary operands share one element type.
func.func @binary_types(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{expects operands of one element type but got 'f32' and 'f16'}}
  %0 = bwc.binary add %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// Tests that comparisons return i1.
func.func @binary_cmp_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects result element type 'i1' but got 'f32'}}
  %0 = bwc.binary lt %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that and/or/xor take integers (logical on i1, bitwise on wider
// ones) and that i1 operands take only them.
func.func @binary_logical(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects integer operands for and/or/xor (and i1 operands only for them) but got 'f32' for 'and'}}
  %0 = bwc.binary and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that fmod takes floats.
func.func @binary_fmod(%x: tensor<4xi64>) {
  // expected-error @+1 {{expects float operands for 'fmod' but got 'i64'}}
  %0 = bwc.binary fmod %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

// Tests that shifts take integers.
func.func @binary_shl(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects integer operands for 'shl' but got 'f32'}}
  %0 = bwc.binary shl %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that operands must broadcast.
func.func @binary_broadcast(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{expects operands that broadcast but got shapes 4x3 and 4x2}}
  %0 = bwc.binary add %x, %y : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that the result has the broadcast shape.
func.func @binary_result_shape(%x: tensor<4x1xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{expects result shape 4x3 but got 4x1}}
  %0 = bwc.binary add %x, %y : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return
}

// -----

// Tests that select's branches share the result's element type.
func.func @select_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{expects branches and result of one element type but got 'f32', 'f16' and 'f32'}}
  %0 = bwc.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// Tests that select's three operands broadcast.
func.func @select_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{expects operands that broadcast but got shapes 3 and 4}}
  %0 = bwc.select %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that cast keeps the shape.
func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects result shape 4 but got 2x2}}
  %0 = bwc.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

// Tests that reduction axes are in range.
func.func @reduce_axis_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects axes in [0, 2) but got 2}}
  %0 = bwc.reduce sum %x axes = [2] keepdims = true : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that reduction axes are sorted and unique.
func.func @reduce_axis_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects sorted unique axes}}
  %0 = bwc.reduce sum %x axes = [1, 0] keepdims = false : (tensor<4x8xf32>) -> tensor<f32>
  return
}

// -----

// Tests that a reduction keeps the element type.
func.func @reduce_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result element type 'f32' but got 'f16'}}
  %0 = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<4x8xf32>) -> tensor<4xf16>
  return
}

// -----

// Tests that keepdims decides the result shape.
func.func @reduce_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result shape 4x1 but got 4}}
  %0 = bwc.reduce sum %x axes = [1] keepdims = true : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that arg_reduce's axis is in range.
func.func @arg_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects axis in [0, 2) but got 5}}
  %0 = bwc.arg_reduce argmin %x axis = 5 keepdims = false select_last_index = false : (tensor<4x8xf32>) -> tensor<4xi64>
  return
}

// -----

// Tests that arg_reduce's result drops or keeps the axis.
func.func @arg_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result shape 4x1 but got 4}}
  %0 = bwc.arg_reduce argmax %x axis = 1 keepdims = true select_last_index = false : (tensor<4x8xf32>) -> tensor<4xi64>
  return
}

// -----

// Tests that matmul needs matrices.
func.func @matmul_rank(%x: tensor<8xf32>, %y: tensor<8x4xf32>) {
  // expected-error @+1 {{expects operands of rank >= 2 but got ranks 1 and 2}}
  %0 = bwc.matmul %x, %y : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that matmul operands share an element type.
func.func @matmul_type(%x: tensor<2x8xf32>, %y: tensor<8x4xf16>) {
  // expected-error @+1 {{expects one element type but got 'f32', 'f16' and 'f32'}}
  %0 = bwc.matmul %x, %y : (tensor<2x8xf32>, tensor<8x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that a matmul accumulator is a float type no narrower than its
// element type.
func.func @matmul_acc_type(%x: tensor<2x8xf32>, %y: tensor<8x4xf32>) {
  // expected-error @+1 {{expects acc_type to be 'f32' or a wider float type but got 'f16'}}
  %0 = bwc.matmul %x, %y {acc_type = f16} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that a conv accumulator is a float type (bf16 is not wider than f16).
func.func @conv_acc_type(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+1 {{expects acc_type to be 'f16' or a wider float type but got 'bf16'}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {acc_type = bf16}
      : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
  return
}

// -----

// Tests that a pool accumulator is a float type.
func.func @pool_acc_type(%x: tensor<1x3x8x8xf16>) {
  // expected-error @+1 {{expects acc_type to be 'f16' or a wider float type but got 'i32'}}
  %0 = bwc.pool avg %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = false count_include_pad = false {acc_type = i32} : (tensor<1x3x8x8xf16>) -> tensor<1x3x4x4xf16>
  return
}

// -----

// Tests that contraction sizes match.
func.func @matmul_k(%x: tensor<2x8xf32>, %y: tensor<7x4xf32>) {
  // expected-error @+1 {{expects contraction sizes to match but got 8 and 7}}
  %0 = bwc.matmul %x, %y : (tensor<2x8xf32>, tensor<7x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that batch dims broadcast.
func.func @matmul_batch(%x: tensor<3x2x8xf32>, %y: tensor<2x8x4xf32>) {
  // expected-error @+1 {{expects batch dims that broadcast}}
  %0 = bwc.matmul %x, %y : (tensor<3x2x8xf32>, tensor<2x8x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

// Tests the matmul result shape.
func.func @matmul_shape(%x: tensor<3x2x8xf32>, %y: tensor<8x4xf32>) {
  // expected-error @+1 {{expects result shape 3x2x4 but got 2x4}}
  %0 = bwc.matmul %x, %y : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that conv needs spatial dims.
func.func @conv_rank(%x: tensor<1x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 but got 2}}
  %0 = bwc.conv %x, %w strides = [] dilations = [] pads = [] groups = 1 : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that the filter has the input's rank.
func.func @conv_filter_rank(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expects filter of rank 3 but got 4}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that conv attributes have one entry per spatial dim.
func.func @conv_attr_sizes(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects 1 strides, 1 dilations and 2 pads}}
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that strides are positive.
func.func @conv_strides(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects positive strides and dilations and non-negative pads}}
  %0 = bwc.conv %x, %w strides = [0] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that groups divide the input channels.
func.func @conv_groups(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects groups dividing the 3 input channels but got 2}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests the filter's channel dim of a direct convolution.
func.func @conv_filter_channels(%x: tensor<1x4x8xf32>, %w: tensor<4x4x3xf32>) {
  // expected-error @+1 {{expects filter dim 1 = 2 but got 4}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 : (tensor<1x4x8xf32>, tensor<4x4x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that output channels are divisible by groups.
func.func @conv_out_channels(%x: tensor<1x4x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+1 {{expects output channels divisible by groups}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 2 : (tensor<1x4x8xf32>, tensor<3x2x3xf32>) -> tensor<1x3x6xf32>
  return
}

// -----

// Tests the filter's dim 0 of a transposed convolution.
func.func @conv_transposed_filter(%x: tensor<1x4x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+1 {{expects filter dim 0 = 4 but got 3}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 {transposed} : (tensor<1x4x8xf32>, tensor<3x2x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

// Tests that a transposed convolution whose output size overflows int64
// (stride * (in - 1)) is an error, not undefined behaviour.
func.func @conv_transposed_overflow(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{expects the output size of spatial dim 0 to fit in int64}}
  %0 = bwc.conv %x, %w strides = [9223372036854775807] dilations = [1] pads = [0, 0] groups = 1 {transposed} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

// Tests that a window whose padded size overflows int64 does not fit.
func.func @conv_pads_overflow(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects the filter window to fit spatial dim 0}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [9223372036854775807, 1] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that output_padding belongs to transposed convolutions.
func.func @conv_output_padding(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects output_padding only when transposed}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 {output_padding = array<i64: 1>} : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests the bias shape.
func.func @conv_bias(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects bias of shape 4 but got 3}}
  %0 = bwc.conv %x, %w, %b strides = [1] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that the filter window fits.
func.func @conv_window(%x: tensor<1x3x2xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects the filter window to fit spatial dim 0}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x3x2xf32>, tensor<4x3x3xf32>) -> tensor<1x4x1xf32>
  return
}

// -----

// Tests the conv result shape.
func.func @conv_shape(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects result shape 1x4x8 but got 1x4x6}}
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [1, 1] groups = 1 : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Tests that pooling needs spatial dims.
func.func @pool_rank(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 but got 2}}
  %0 = bwc.pool max %x kernel = [] strides = [] dilations = [] pads = [] ceil_mode = false count_include_pad = false : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

// Tests that pool attributes have one entry per spatial dim.
func.func @pool_attr_sizes(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{expects 1 kernel sizes, strides, dilations and 2 pads}}
  %0 = bwc.pool max %x kernel = [2, 2] strides = [2] dilations = [1] pads = [0, 0] ceil_mode = false count_include_pad = false : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
  return
}

// -----

// Tests that pool kernel sizes are positive.
func.func @pool_positive(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{expects positive kernel, strides and dilations}}
  %0 = bwc.pool max %x kernel = [0] strides = [2] dilations = [1] pads = [0, 0] ceil_mode = false count_include_pad = false : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
  return
}

// -----

// Tests that the pool window fits.
func.func @pool_window(%x: tensor<1x3x2xf32>) {
  // expected-error @+1 {{expects the window to fit spatial dim 0}}
  %0 = bwc.pool avg %x kernel = [3] strides = [1] dilations = [1] pads = [0, 0] ceil_mode = false count_include_pad = false : (tensor<1x3x2xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// Tests that ceil_mode decides the pool result shape.
func.func @pool_shape(%x: tensor<1x3x5xf32>) {
  // expected-error @+1 {{expects result shape 1x3x3 but got 1x3x2}}
  %0 = bwc.pool max %x kernel = [2] strides = [2] dilations = [1] pads = [0, 0] ceil_mode = true count_include_pad = false : (tensor<1x3x5xf32>) -> tensor<1x3x2xf32>
  return
}

// -----

// Tests that pooling keeps the element type.
func.func @pool_type(%x: tensor<1x3x4xf32>) {
  // expected-error @+1 {{expects result element type 'f32'}}
  %0 = bwc.pool max %x kernel = [2] strides = [2] dilations = [1] pads = [0, 0] ceil_mode = false count_include_pad = false : (tensor<1x3x4xf32>) -> tensor<1x3x2xf16>
  return
}

// -----

// Tests that a permutation covers every dim.
func.func @transpose_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects a permutation of 2 dims but got 1}}
  %0 = bwc.transpose %x perm = [0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that a permutation has no repeats.
func.func @transpose_perm(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects a permutation but got dim 0}}
  %0 = bwc.transpose %x perm = [0, 0] : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests the transpose result shape.
func.func @transpose_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result shape 8x4 but got 4x8}}
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that data movement keeps the element type.
func.func @transpose_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result element type 'f32' but got 'f16'}}
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf16>
  return
}

// -----

// Tests that reshape keeps the element count.
func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects the same number of elements but got 32 and 30}}
  %0 = bwc.reshape %x : (tensor<4x8xf32>) -> tensor<30xf32>
  return
}

// -----

// Tests that broadcast goes one way.
func.func @broadcast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects input shape 4x8 to broadcast to 1x8}}
  %0 = bwc.broadcast %x : (tensor<4x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

// Tests that slice attributes match the rank.
func.func @slice_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects starts, steps and result of rank 2}}
  %0 = bwc.slice %x starts = [0] steps = [1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that slice steps are non-zero.
func.func @slice_step(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects non-zero steps}}
  %0 = bwc.slice %x starts = [0, 0] steps = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that a slice stays inside its input.
func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects dim 0 indices [2, 4] inside [0, 4)}}
  %0 = bwc.slice %x starts = [2, 0] steps = [1, 1] : (tensor<4x8xf32>) -> tensor<3x8xf32>
  return
}

// -----

// Tests that concat's axis is in range.
func.func @concat_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects axis in [0, 2) but got 2}}
  %0 = bwc.concat %x, %x axis = 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

// Tests that concat has inputs.
func.func @concat_empty() {
  // expected-error @+1 {{expects at least one input}}
  %0 = bwc.concat axis = 0 : () -> tensor<4xf32>
  return
}

// -----

// Tests that concat inputs share the rank.
func.func @concat_input_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{expects inputs of rank 2}}
  %0 = bwc.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<5x8xf32>
  return
}

// -----

// Tests that concat inputs agree off the axis.
func.func @concat_dims(%x: tensor<4x8xf32>, %y: tensor<4x7xf32>) {
  // expected-error @+1 {{expects input dim 1 = 8 but got 7}}
  %0 = bwc.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<4x7xf32>) -> tensor<8x8xf32>
  return
}

// -----

// Tests the concat result size along the axis.
func.func @concat_total(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result dim 0 = 8 but got 9}}
  %0 = bwc.concat %x, %x axis = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<9x8xf32>
  return
}

// -----

// Tests that pad has begin and end pads for every dim.
func.func @pad_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects 4 pads but got 2}}
  %0 = bwc.pad constant %x pads = [1, 1] value = 0.0 : f32 : (tensor<4x8xf32>) -> tensor<6x8xf32>
  return
}

// -----

// Tests that pads are non-negative.
func.func @pad_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects non-negative pads}}
  %0 = bwc.pad constant %x pads = [-1, 0, 0, 0] value = 0.0 : f32 : (tensor<4x8xf32>) -> tensor<3x8xf32>
  return
}

// -----

// Tests that reflect pads are smaller than the dim.
func.func @pad_reflect(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{expects reflect pads smaller than dim 0}}
  %0 = bwc.pad reflect %x pads = [2, 0, 0, 0] value = 0.0 : f32 : (tensor<2x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that edge padding needs an element to repeat.
func.func @pad_edge(%x: tensor<0x8xf32>) {
  // expected-error @+1 {{expects a non-empty dim 0 for edge padding}}
  %0 = bwc.pad edge %x pads = [1, 0, 0, 0] value = 0.0 : f32 : (tensor<0x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

// Tests the pad result shape.
func.func @pad_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects result shape 6x8 but got 5x8}}
  %0 = bwc.pad constant %x pads = [1, 0, 1, 0] value = 0.0 : f32 : (tensor<4x8xf32>) -> tensor<5x8xf32>
  return
}

// -----

// Tests that the pad value has the element type.
func.func @pad_value(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects a pad value of type 'f32' but got 'i64'}}
  %0 = bwc.pad constant %x pads = [1, 0, 1, 0] value = 0 : i64 : (tensor<4x8xf32>) -> tensor<6x8xf32>
  return
}

// -----

// Tests that gather's axis is in range.
func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects axis in [0, 2) but got 3}}
  %0 = bwc.gather %x[%i] axis = 3 : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return
}

// -----

// Tests the gather result shape.
func.func @gather_shape(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects result shape 4x2 but got 2x8}}
  %0 = bwc.gather %x[%i] axis = 1 : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that resize has one scale per dim.
func.func @resize_rank(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expects result and scales of rank 4}}
  %0 = bwc.resize nearest %x scales = [2.0, 2.0] coord = asymmetric nearest_mode = floor : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that resize scales are positive.
func.func @resize_scales(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expects positive scales}}
  %0 = bwc.resize nearest %x scales = [1.0, 1.0, 0.0, 2.0] coord = asymmetric nearest_mode = floor : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that ops reject dynamic shapes (ODS type constraint).
func.func @dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = bwc.unary exp %x : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

// Tests that cubic parameters need cubic mode.
func.func @resize_cubic_attrs(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expects cubic_coeff_a and exclude_outside only in cubic mode}}
  %0 = bwc.resize linear %x scales = [1.0, 1.0, 2.0, 2.0] coord = asymmetric nearest_mode = floor {exclude_outside} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that resize rejects booleans.
func.func @resize_bool(%x: tensor<1x1x2x2xi1>) {
  // expected-error @+1 {{expects a numeric input but got i1}}
  %0 = bwc.resize nearest %x scales = [1.0, 1.0, 2.0, 2.0] coord = asymmetric nearest_mode = floor : (tensor<1x1x2x2xi1>) -> tensor<1x1x4x4xi1>
  return
}

// -----

// Tests that a fusion region has one block argument per input.
func.func @fusion_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects 1 block arguments but got 0}}
  %r = bwc.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = bwc.constant dense<1.0> : tensor<4xf32>
    bwc.yield %c : tensor<4xf32>
  }
  return
}

// -----

// Tests that block arguments have the inputs' types.
func.func @fusion_arg_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects block argument types to match inputs but got 'tensor<4xf16>' for 'tensor<4xf32>'}}
  %r = bwc.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    bwc.yield %a : tensor<4xf16>
  }
  return
}

// -----

// Tests that the yield matches the results.
func.func @fusion_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects the yielded types to match the results}}
  %r = bwc.fusion loop (%x) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    bwc.yield %a : tensor<4xf32>
  }
  return
}

// -----

// Tests that a fusion region holds only bwc compute ops.
func.func @fusion_foreign(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects only bwc compute ops inside but got 'tensor.empty'}}
  %r = bwc.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    bwc.yield %a : tensor<4xf32>
  }
  return
}

// -----

// Tests that the fusion region is isolated from above.
func.func @fusion_isolated(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = bwc.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %0 = bwc.binary add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    bwc.yield %0 : tensor<4xf32>
  }
  return
}
