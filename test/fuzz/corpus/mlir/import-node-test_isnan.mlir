module {
  func.func @main(%arg0: tensor<4xf32> {bwc.name = "x"}) -> (tensor<4xi1> {bwc.name = "y"}) {
    %0 = bwc.binary eq %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %1 = bwc.unary not %0 : (tensor<4xi1>) -> tensor<4xi1>
    return %1 : tensor<4xi1>
  }
}

