module {
  func.func @main(%arg0: tensor<3x4xi1> {bwc.name = "x"}) -> (tensor<3x4xi1> {bwc.name = "not"}) {
    %0 = bwc.unary not %arg0 : (tensor<3x4xi1>) -> tensor<3x4xi1>
    return %0 : tensor<3x4xi1>
  }
}

