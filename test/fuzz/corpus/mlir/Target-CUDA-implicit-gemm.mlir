func.func @main(%x: tensor<2x8x10x12xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %y: tensor<1x9x9x16xbf16>, %v: tensor<3x3x16x32xbf16>, %dw: tensor<8x1x3x3xf32>) -> (tensor<2x16x10x12xf32>, tensor<1x5x5x32xbf16>, tensor<2x8x10x12xf32>) {
  %c = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<2x8x10x12xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x12xf32>
  %r = bwc.unary relu %c : (tensor<2x16x10x12xf32>) -> tensor<2x16x10x12xf32>
  %n = bwc.conv %y, %v strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {channels_last} : (tensor<1x9x9x16xbf16>, tensor<3x3x16x32xbf16>) -> tensor<1x5x5x32xbf16>
  %d = bwc.conv %x, %dw strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 8 : (tensor<2x8x10x12xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x10x12xf32>
  return %r, %n, %d : tensor<2x16x10x12xf32>, tensor<1x5x5x32xbf16>, tensor<2x8x10x12xf32>
}
