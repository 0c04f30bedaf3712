func.func @main(%x: tensor<4x64xf32> {bwc.name = "x"}) -> (tensor<4x8xf32> {bwc.name = "y"}, tensor<4x8xf32> {bwc.name = "big"}) {
  %w = bwc.constant dense<0.5> : tensor<64x8xf32>
  %c = bwc.constant dense<1.0e5> : tensor<f32>
  %m = bwc.matmul %x, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %y = bwc.unary neg %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = bwc.binary mul %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %mb = bwc.matmul %s, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %b = bwc.unary neg %mb : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
