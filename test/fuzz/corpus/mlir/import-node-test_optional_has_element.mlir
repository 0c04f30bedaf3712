module {
  func.func @main(%arg0: tensor<4xf32> {bwc.name = "optional_input"}) -> (tensor<i1> {bwc.name = "output"}) {
    %0 = bwc.constant dense<true> : tensor<i1>
    return %0 : tensor<i1>
  }
}

