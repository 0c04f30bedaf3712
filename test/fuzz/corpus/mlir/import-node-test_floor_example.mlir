module {
  func.func @main(%arg0: tensor<3xf32> {bwc.name = "x"}) -> (tensor<3xf32> {bwc.name = "y"}) {
    %0 = bwc.unary floor %arg0 : (tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}

