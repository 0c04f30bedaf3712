module {
  func.func @main(%arg0: tensor<3x4xf32> {bwc.name = "X"}, %arg1: tensor<4xf32> {bwc.name = "W"}, %arg2: tensor<4xf32> {bwc.name = "B"}) -> (tensor<3x4xf32> {bwc.name = "Y"}, tensor<3x1xf32> {bwc.name = "Mean"}, tensor<3x1xf32> {bwc.name = "InvStdDev"}) {
    %0 = bwc.reduce mean %arg0 axes = [1] keepdims = true : (tensor<3x4xf32>) -> tensor<3x1xf32>
    %1 = bwc.binary sub %arg0, %0 : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
    %2 = bwc.binary mul %1, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %3 = bwc.reduce mean %2 axes = [1] keepdims = true : (tensor<3x4xf32>) -> tensor<3x1xf32>
    %4 = bwc.constant dense<9.99999974E-6> : tensor<f32>
    %5 = bwc.binary add %3, %4 : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
    %6 = bwc.unary rsqrt %5 : (tensor<3x1xf32>) -> tensor<3x1xf32>
    %7 = bwc.binary mul %1, %6 : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
    %8 = bwc.binary mul %7, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %9 = bwc.binary add %8, %arg2 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    return %9, %0, %6 : tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>
  }
}

