module {
  func.func @main(%arg0: tensor<15xf32> {bwc.name = "x"}) -> (tensor<15xf32> {bwc.name = "y"}) {
    %0 = bwc.unary round %arg0 : (tensor<15xf32>) -> tensor<15xf32>
    return %0 : tensor<15xf32>
  }
}

