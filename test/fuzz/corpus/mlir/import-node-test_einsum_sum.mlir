module {
  func.func @main(%arg0: tensor<3x4xf64> {bwc.name = "x"}) -> (tensor<3xf64> {bwc.name = "y"}) {
    %0 = bwc.reduce sum %arg0 axes = [1] keepdims = false : (tensor<3x4xf64>) -> tensor<3xf64>
    return %0 : tensor<3xf64>
  }
}

