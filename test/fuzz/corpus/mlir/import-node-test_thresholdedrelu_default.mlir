module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}) -> (tensor<3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %1 = bwc.binary gt %arg0, %0 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xi1>
    %2 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %3 = bwc.select %1, %arg0, %2 : (tensor<3x4x5xi1>, tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xf32>
    return %3 : tensor<3x4x5xf32>
  }
}

