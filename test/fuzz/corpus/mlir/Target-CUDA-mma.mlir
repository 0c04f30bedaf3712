func.func @main(%a: tensor<2x70x40xbf16>, %w: tensor<40x33xbf16>, %bias: tensor<33xbf16>, %c: tensor<64x32xf16>, %d: tensor<32x48xf16>) -> (tensor<2x70x33xbf16>, tensor<64x48xf16>) {
  %mm = bwc.matmul %a, %w : (tensor<2x70x40xbf16>, tensor<40x33xbf16>) -> tensor<2x70x33xbf16>
  %y = bwc.binary add %mm, %bias : (tensor<2x70x33xbf16>, tensor<33xbf16>) -> tensor<2x70x33xbf16>
  %m2 = bwc.matmul %c, %d : (tensor<64x32xf16>, tensor<32x48xf16>) -> tensor<64x48xf16>
  return %y, %m2 : tensor<2x70x33xbf16>, tensor<64x48xf16>
}
