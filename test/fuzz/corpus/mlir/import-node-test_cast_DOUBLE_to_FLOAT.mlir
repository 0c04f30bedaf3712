module {
  func.func @main(%arg0: tensor<3x4xf64> {bwc.name = "input"}) -> (tensor<3x4xf32> {bwc.name = "output"}) {
    %0 = bwc.cast %arg0 : tensor<3x4xf64> to tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}

