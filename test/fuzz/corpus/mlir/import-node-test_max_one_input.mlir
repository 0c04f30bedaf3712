module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "data_0"}) -> (tensor<3xf32> {bwc.name = "result"}) {
    return %arg0 : tensor<3xf32>
  }
}

