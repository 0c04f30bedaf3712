module {
  func.func @main(%arg0: tensor<3x3x3x1xf32> {bwc.name = "X"}) -> (tensor<3x3x3x1xf32> {bwc.name = "Y"}) {
    %0 = bwc.constant dense<2.000000e+00> : tensor<f32>
    %1 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %2 = bwc.binary div %arg0, %0 : (tensor<3x3x3x1xf32>, tensor<f32>) -> tensor<3x3x3x1xf32>
    %3 = bwc.unary exp %2 : (tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    %4 = bwc.binary sub %3, %1 : (tensor<3x3x3x1xf32>, tensor<f32>) -> tensor<3x3x3x1xf32>
    %5 = bwc.binary mul %0, %4 : (tensor<f32>, tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    %6 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %7 = bwc.binary min %6, %5 : (tensor<f32>, tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    %8 = bwc.unary relu %arg0 : (tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    %9 = bwc.binary add %8, %7 : (tensor<3x3x3x1xf32>, tensor<3x3x3x1xf32>) -> tensor<3x3x3x1xf32>
    return %9 : tensor<3x3x3x1xf32>
  }
}

