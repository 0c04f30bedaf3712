module {
  func.func @main(%arg0: tensor<3x4xf32> {bwc.name = "a"}, %arg1: tensor<4x3xf32> {bwc.name = "b"}) -> (tensor<3x3xf32> {bwc.name = "c"}) {
    %0 = bwc.matmul %arg0, %arg1 : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
    return %0 : tensor<3x3xf32>
  }
}

