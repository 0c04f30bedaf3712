module {
  func.func @main(%arg0: tensor<6xf32> {bwc.name = "x"}, %arg1: tensor<f32> {bwc.name = "y_scale"}, %arg2: tensor<ui8> {bwc.name = "y_zero_point"}) -> (tensor<6xui8> {bwc.name = "y"}) {
    %0 = bwc.binary div %arg0, %arg1 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = bwc.unary round %0 : (tensor<6xf32>) -> tensor<6xf32>
    %2 = bwc.cast %arg2 : tensor<ui8> to tensor<f32>
    %3 = bwc.binary add %1, %2 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %4 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %5 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %6 = bwc.binary max %3, %5 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %7 = bwc.binary min %6, %4 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = bwc.cast %7 : tensor<6xf32> to tensor<6xui8>
    return %8 : tensor<6xui8>
  }
}

