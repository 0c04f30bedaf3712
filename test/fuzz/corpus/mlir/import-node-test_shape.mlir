module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}) -> (tensor<3xi64> {bwc.name = "y"}) {
    %0 = bwc.constant dense<[3, 4, 5]> : tensor<3xi64>
    return %0 : tensor<3xi64>
  }
}

