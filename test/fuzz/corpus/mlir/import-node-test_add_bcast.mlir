module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}, %arg1: tensor<5xf32> {bwc.name = "y"}) -> (tensor<3x4x5xf32> {bwc.name = "sum"}) {
    %0 = bwc.binary add %arg0, %arg1 : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
    return %0 : tensor<3x4x5xf32>
  }
}

