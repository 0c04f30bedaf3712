module {
  func.func @main(%arg0: tensor<3x4x5xf32> {bwc.name = "x"}, %arg1: tensor<5xf32> {bwc.name = "y"}) -> (tensor<3x4x5xi1> {bwc.name = "less_equal"}) {
    %0 = bwc.binary le %arg0, %arg1 : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xi1>
    return %0 : tensor<3x4x5xi1>
  }
}

