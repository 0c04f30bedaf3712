func.func @main(%t: tensor<1x1x64x48xf32>, %w: tensor<48x16xf32>) -> (tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) {
  %x = bwc.pool max %t kernel = [1, 1] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %b = bwc.unary neg %x : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %a = bwc.unary exp %b : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %c = bwc.matmul %b, %w : (tensor<1x1x64x48xf32>, tensor<48x16xf32>) -> tensor<1x1x64x16xf32>
  %d = bwc.matmul %a, %w : (tensor<1x1x64x48xf32>, tensor<48x16xf32>) -> tensor<1x1x64x16xf32>
  return %c, %d : tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>
}
