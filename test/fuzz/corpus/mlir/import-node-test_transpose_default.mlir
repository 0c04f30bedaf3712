module {
  func.func @main(%arg0: tensor<2x3x4xf32> {bwc.name = "data"}) -> (tensor<4x3x2xf32> {bwc.name = "transposed"}) {
    %0 = bwc.transpose %arg0 perm = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
    return %0 : tensor<4x3x2xf32>
  }
}

