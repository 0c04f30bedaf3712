module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}) -> (tensor<3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<5.000000e-01> : tensor<f32>
    %1 = bwc.constant dense<2.000000e-01> : tensor<f32>
    %2 = bwc.binary mul %arg0, %1 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %3 = bwc.binary add %2, %0 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %4 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %5 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %6 = bwc.binary max %3, %5 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %7 = bwc.binary min %6, %4 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    return %7 : tensor<3x4x5xf32>
  }
}

