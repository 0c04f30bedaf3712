func.func @main(%x: tensor<4x64xf32> {bwc.name = "x"}) -> (tensor<4x8xf32> {bwc.name = "y"}) {
  %w = bwc.constant dense<0.5> : tensor<64x8xf32>
  %y = bwc.matmul %x, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
