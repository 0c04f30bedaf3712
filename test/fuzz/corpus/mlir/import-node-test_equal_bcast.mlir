module {
  func.func @main(%arg0: tensor<3x4x5xi32> {bwc.name = "x"}, %arg1: tensor<5xi32> {bwc.name = "y"}) -> (tensor<3x4x5xi1> {bwc.name = "z"}) {
    %0 = bwc.binary eq %arg0, %arg1 : (tensor<3x4x5xi32>, tensor<5xi32>) -> tensor<3x4x5xi1>
    return %0 : tensor<3x4x5xi1>
  }
}

