module {
  func.func @main(%arg0: tensor<3x2x2xf32> {bwc.name = "data"}) -> (tensor<1x1x1xf32> {bwc.name = "reduced"}) {
    %0 = bwc.reduce max %arg0 axes = [0, 1, 2] keepdims = true : (tensor<3x2x2xf32>) -> tensor<1x1x1xf32>
    return %0 : tensor<1x1x1xf32>
  }
}

