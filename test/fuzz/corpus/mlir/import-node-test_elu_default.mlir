module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}) -> (tensor<3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %1 = bwc.binary lt %arg0, %0 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xi1>
    %2 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %3 = bwc.unary exp %arg0 : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %4 = bwc.binary sub %3, %2 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %5 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %6 = bwc.binary mul %4, %5 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %7 = bwc.select %1, %6, %arg0 : (tensor<3x4x5xi1>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    return %7 : tensor<3x4x5xf32>
  }
}

