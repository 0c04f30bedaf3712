module {
  func.func @main(%arg0: tensor<4xf32> {bwc.name = "optional_input"}) -> (tensor<4xf32> {bwc.name = "output"}) {
    return %arg0 : tensor<4xf32>
  }
}

