module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "data"}) -> (tensor<1x1x1xf32> {bwc.name = "reduced"}) {
    %0 = bwc.reduce sum %arg0 axes = [0, 1, 2] keepdims = true : (tensor<3x4x5xf32>) -> tensor<1x1x1xf32>
    %1 = bwc.unary log %0 : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    return %1 : tensor<1x1x1xf32>
  }
}

