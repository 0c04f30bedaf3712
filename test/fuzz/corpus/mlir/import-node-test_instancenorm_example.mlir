module {
  func.func @main(%arg0: tensor<1x2x1x3xf32> {bwc.name = "x"}, %arg1: tensor<2xf32> {bwc.name = "s"}, %arg2: tensor<2xf32> {bwc.name = "bias"}) -> (tensor<1x2x1x3xf32> {bwc.name = "y"}) {
    %0 = bwc.reduce mean %arg0 axes = [2, 3] keepdims = true : (tensor<1x2x1x3xf32>) -> tensor<1x2x1x1xf32>
    %1 = bwc.binary sub %arg0, %0 : (tensor<1x2x1x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x3xf32>
    %2 = bwc.binary mul %1, %1 : (tensor<1x2x1x3xf32>, tensor<1x2x1x3xf32>) -> tensor<1x2x1x3xf32>
    %3 = bwc.reduce mean %2 axes = [2, 3] keepdims = true : (tensor<1x2x1x3xf32>) -> tensor<1x2x1x1xf32>
    %4 = bwc.constant dense<9.99999974E-6> : tensor<f32>
    %5 = bwc.binary add %3, %4 : (tensor<1x2x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1xf32>
    %6 = bwc.unary sqrt %5 : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
    %7 = bwc.binary div %1, %6 : (tensor<1x2x1x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x3xf32>
    %8 = bwc.reshape %arg1 : (tensor<2xf32>) -> tensor<2x1x1xf32>
    %9 = bwc.binary mul %7, %8 : (tensor<1x2x1x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x3xf32>
    %10 = bwc.reshape %arg2 : (tensor<2xf32>) -> tensor<2x1x1xf32>
    %11 = bwc.binary add %9, %10 : (tensor<1x2x1x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x3xf32>
    return %11 : tensor<1x2x1x3xf32>
  }
}

