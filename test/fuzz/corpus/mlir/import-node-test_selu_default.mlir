module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}) -> (tensor<3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %1 = bwc.binary le %arg0, %0 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xi1>
    %2 = bwc.constant dense<1.67326319> : tensor<f32>
    %3 = bwc.constant dense<1.67326319> : tensor<f32>
    %4 = bwc.unary exp %arg0 : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %5 = bwc.binary mul %4, %3 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %6 = bwc.binary sub %5, %2 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    %7 = bwc.constant dense<1.05070102> : tensor<f32>
    %8 = bwc.select %1, %6, %arg0 : (tensor<3x4x5xi1>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %9 = bwc.binary mul %8, %7 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    return %9 : tensor<3x4x5xf32>
  }
}

