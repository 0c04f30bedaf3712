module {
  func.func @main(%arg0: tensor<11xf32> {bwc.name = "x"}) -> (tensor<11xf32> {bwc.name = "y"}) {
    %0 = bwc.unary sign %arg0 : (tensor<11xf32>) -> tensor<11xf32>
    return %0 : tensor<11xf32>
  }
}

