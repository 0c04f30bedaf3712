module {
  func.func @main(%arg0: tensor<1x3x5x5xf32> {bwc.name = "x"}) -> (tensor<1x3x1x1xf32> {bwc.name = "y"}) {
    %0 = bwc.reduce max %arg0 axes = [2, 3] keepdims = true : (tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32>
    return %0 : tensor<1x3x1x1xf32>
  }
}

