module {
  func.func @main(%arg0: tensor<2xf32> {bwc.name = "value0"}, %arg1: tensor<2xf32> {bwc.name = "value1"}) -> (tensor<4xf32> {bwc.name = "output"}) {
    %0 = bwc.concat %arg0, %arg1 axis = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

