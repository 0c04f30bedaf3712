module {
  func.func @main(%arg0: tensor<3x2x2xf32> {bwc.name = "data"}) -> (tensor<1x1x1xf32> {bwc.name = "reduced"}) {
    %0 = bwc.binary mul %arg0, %arg0 : (tensor<3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
    %1 = bwc.reduce sum %0 axes = [0, 1, 2] keepdims = true : (tensor<3x2x2xf32>) -> tensor<1x1x1xf32>
    return %1 : tensor<1x1x1xf32>
  }
}

