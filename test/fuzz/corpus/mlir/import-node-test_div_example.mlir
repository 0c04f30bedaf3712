module {
  func.func @main(%arg0: tensor<2xf32> {bwc.name = "x"}, %arg1: tensor<2xf32> {bwc.name = "y"}) -> (tensor<2xf32> {bwc.name = "z"}) {
    %0 = bwc.binary div %arg0, %arg1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

