module {
  func.func @main(%arg0: tensor<2x2x6x6xf32> {bwc.name = "x"}) -> (tensor<2x8x3x3xf32> {bwc.name = "y"}) {
    %0 = bwc.reshape %arg0 : (tensor<2x2x6x6xf32>) -> tensor<2x2x3x2x3x2xf32>
    %1 = bwc.transpose %0 perm = [0, 3, 5, 1, 2, 4] : (tensor<2x2x3x2x3x2xf32>) -> tensor<2x2x2x2x3x3xf32>
    %2 = bwc.reshape %1 : (tensor<2x2x2x2x3x3xf32>) -> tensor<2x8x3x3xf32>
    return %2 : tensor<2x8x3x3xf32>
  }
}

