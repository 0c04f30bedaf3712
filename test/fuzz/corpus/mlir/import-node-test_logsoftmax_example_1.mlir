module {
  func.func @main(%arg0: tensor<1x3xf32> {bwc.name = "x"}) -> (tensor<1x3xf32> {bwc.name = "y"}) {
    %0 = bwc.reduce max %arg0 axes = [1] keepdims = true : (tensor<1x3xf32>) -> tensor<1x1xf32>
    %1 = bwc.binary sub %arg0, %0 : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
    %2 = bwc.unary exp %1 : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %3 = bwc.reduce sum %2 axes = [1] keepdims = true : (tensor<1x3xf32>) -> tensor<1x1xf32>
    %4 = bwc.unary log %3 : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %5 = bwc.binary sub %1, %4 : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
    return %5 : tensor<1x3xf32>
  }
}

