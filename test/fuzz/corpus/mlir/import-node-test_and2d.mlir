module {
  func.func @main(%arg0: tensor<3x4xi1> {bwc.name = "x"}, %arg1: tensor<3x4xi1> {bwc.name = "y"}) -> (tensor<3x4xi1> {bwc.name = "and"}) {
    %0 = bwc.binary and %arg0, %arg1 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    return %0 : tensor<3x4xi1>
  }
}

