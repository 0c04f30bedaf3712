module {
  func.func @main(%arg0: tensor<3x2x2xf64> {bwc.name = "data"}) -> (tensor<1x1x1xf64> {bwc.name = "reduced"}) {
    %0 = bwc.reduce max %arg0 axes = [0, 1, 2] keepdims = true : (tensor<3x2x2xf64>) -> tensor<1x1x1xf64>
    %1 = bwc.binary sub %arg0, %0 : (tensor<3x2x2xf64>, tensor<1x1x1xf64>) -> tensor<3x2x2xf64>
    %2 = bwc.unary exp %1 : (tensor<3x2x2xf64>) -> tensor<3x2x2xf64>
    %3 = bwc.reduce sum %2 axes = [0, 1, 2] keepdims = true : (tensor<3x2x2xf64>) -> tensor<1x1x1xf64>
    %4 = bwc.unary log %3 : (tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
    %5 = bwc.binary add %4, %0 : (tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
    return %5 : tensor<1x1x1xf64>
  }
}

