module {
  func.func @main(%arg0: tensor<10xf32> {bwc.name = "data"}, %arg1: tensor<3xi64> {bwc.name = "indices"}) -> (tensor<3xf32> {bwc.name = "y"}) {
    %0 = bwc.gather %arg0[%arg1] axis = 0 : (tensor<10xf32>, tensor<3xi64>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}

