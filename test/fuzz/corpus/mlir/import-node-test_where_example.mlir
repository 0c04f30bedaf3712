module {
  func.func @main(%arg0: tensor<2x2xi1> {bwc.name = "condition"}, %arg1: tensor<2x2xf32> {bwc.name = "x"}, %arg2: tensor<2x2xf32> {bwc.name = "y"}) -> (tensor<2x2xf32> {bwc.name = "z"}) {
    %0 = bwc.select %arg0, %arg1, %arg2 : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}

