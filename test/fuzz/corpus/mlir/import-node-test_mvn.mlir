module {
  func.func @main(%arg0: tensor<3x3x3x1xf32> {bwc.name = "X"}) -> (tensor<3x3x3x1xf32> {bwc.name = "Y"}) {
    %0 = bwc.reduce mean %arg0 axes = [0, 2, 3] keepdims = true : (tensor<3x3x3x1xf32>) -> tensor<1x3x1x1xf32>
    %1 = bwc.binary sub %arg0, %0 : (tensor<3x3x3x1xf32>, tensor<1x3x1x1xf32>) -> tensor<3x3x3x1xf32>
    %2 = bwc.binary mul %1, %1 : (tensor<3x3x3x1xf32>, tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    %3 = bwc.reduce mean %2 axes = [0, 2, 3] keepdims = true : (tensor<3x3x3x1xf32>) -> tensor<1x3x1x1xf32>
    %4 = bwc.constant dense<9.99999971E-10> : tensor<f32>
    %5 = bwc.unary sqrt %3 : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
    %6 = bwc.binary add %5, %4 : (tensor<1x3x1x1xf32>, tensor<f32>) -> tensor<1x3x1x1xf32>
    %7 = bwc.binary div %1, %6 : (tensor<3x3x3x1xf32>, tensor<1x3x1x1xf32>) -> tensor<3x3x3x1xf32>
    return %7 : tensor<3x3x3x1xf32>
  }
}

