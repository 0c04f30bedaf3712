module {
  func.func @main(%arg0: tensor<2xf32> {bwc.name = "x"}) -> (tensor<2xf32> {bwc.name = "y"}) {
    %0 = bwc.unary log %arg0 : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

