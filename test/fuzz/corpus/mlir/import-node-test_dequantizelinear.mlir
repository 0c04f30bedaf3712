module {
  func.func @main(%arg0: tensor<4xui8> {bwc.name = "x"}, %arg1: tensor<f32> {bwc.name = "x_scale"}, %arg2: tensor<ui8> {bwc.name = "x_zero_point"}) -> (tensor<4xf32> {bwc.name = "y"}) {
    %0 = bwc.cast %arg0 : tensor<4xui8> to tensor<4xf32>
    %1 = bwc.cast %arg2 : tensor<ui8> to tensor<f32>
    %2 = bwc.binary sub %0, %1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = bwc.binary mul %2, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}

