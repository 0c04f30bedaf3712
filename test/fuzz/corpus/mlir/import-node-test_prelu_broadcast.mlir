module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}, %arg1: tensor<5xf32> {bwc.name = "slope"}) -> (tensor<3x4x5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %1 = bwc.binary lt %arg0, %0 : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x4x5xi1>
    %2 = bwc.binary mul %arg0, %arg1 : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
    %3 = bwc.select %1, %2, %arg0 : (tensor<3x4x5xi1>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    return %3 : tensor<3x4x5xf32>
  }
}

