module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "x"}) -> (tensor<3xf32> {bwc.name = "y"}) {
    %0 = bwc.unary abs %arg0 : (tensor<3xf32>) -> tensor<3xf32>
    %1 = bwc.unary neg %0 : (tensor<3xf32>) -> tensor<3xf32>
    %2 = bwc.unary exp %1 : (tensor<3xf32>) -> tensor<3xf32>
    %3 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %4 = bwc.binary add %2, %3 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = bwc.unary log %4 : (tensor<3xf32>) -> tensor<3xf32>
    %6 = bwc.unary relu %arg0 : (tensor<3xf32>) -> tensor<3xf32>
    %7 = bwc.binary add %6, %5 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %7 : tensor<3xf32>
  }
}

