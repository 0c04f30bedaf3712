module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "x"}, %arg1: tensor<3xf32> {bwc.name = "y"}) -> (tensor<3xf32> {bwc.name = "z"}) {
    %0 = bwc.binary pow %arg0, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}

