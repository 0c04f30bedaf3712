module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "x"}) -> (tensor<3xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %1 = bwc.unary abs %arg0 : (tensor<3xf32>) -> tensor<3xf32>
    %2 = bwc.binary add %1, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %3 = bwc.binary div %arg0, %2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %3 : tensor<3xf32>
  }
}

