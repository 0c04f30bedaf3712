module {
  func.func @main(%arg0: tensor<2x3x4x5xf32> {bwc.name = "x"}, %arg1: tensor<3xf32> {bwc.name = "s"}, %arg2: tensor<3xf32> {bwc.name = "bias"}, %arg3: tensor<3xf32> {bwc.name = "mean"}, %arg4: tensor<3xf32> {bwc.name = "var"}) -> (tensor<2x3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<9.99999974E-6> : tensor<f32>
    %1 = bwc.binary add %arg4, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = bwc.unary sqrt %1 : (tensor<3xf32>) -> tensor<3xf32>
    %3 = bwc.binary div %arg1, %2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %4 = bwc.binary mul %arg3, %3 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %5 = bwc.binary sub %arg2, %4 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %6 = bwc.reshape %3 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %7 = bwc.binary mul %arg0, %6 : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
    %8 = bwc.reshape %5 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %9 = bwc.binary add %7, %8 : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
    return %9 : tensor<2x3x4x5xf32>
  }
}

