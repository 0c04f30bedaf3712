module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "data_0"}) -> (tensor<3xf32> {bwc.name = "result"}) {
    %0 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %1 = bwc.binary div %arg0, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}

