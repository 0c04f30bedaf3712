module {
  func.func @main(%arg0: tensor<2x10xf32> {bwc.name = "a"}, %arg1: tensor<10x3xf32> {bwc.name = "b"}) -> (tensor<2x3xf32> {bwc.name = "y"}) {
    %0 = bwc.matmul %arg0, %arg1 : (tensor<2x10xf32>, tensor<10x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}

