module {
  func.func @main(%arg0: tensor<4x4xi32> {bwc.name = "x"}) -> (tensor<4x4xi32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]> : tensor<4x4xi32>
    return %0 : tensor<4x4xi32>
  }
}

