module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "x"}) -> (tensor<3xf32> {bwc.name = "y"}) {
    return %arg0 : tensor<3xf32>
  }
}

