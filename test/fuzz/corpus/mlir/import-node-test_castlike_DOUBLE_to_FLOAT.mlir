module {
  func.func @main(%arg0: tensor<3x4xf64> {bwc.name = "input"}, %arg1: tensor<1xf32> {bwc.name = "like"}) -> (tensor<3x4xf32> {bwc.name = "output"}) {
    %0 = bwc.cast %arg0 : tensor<3x4xf64> to tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}

