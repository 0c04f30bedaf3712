module {
  func.func @main(%arg0: tensor<4x4xf32> {bwc.name = "x"}) -> (tensor<4x4xf32> {bwc.name = "y"}) {
    %0 = bwc.arg_reduce argmax %arg0 axis = 1 keepdims = true select_last_index = false : (tensor<4x4xf32>) -> tensor<4x1xi64>
    %1 = bwc.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
    %2 = bwc.binary eq %0, %1 : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
    %3 = bwc.cast %2 : tensor<4x4xi1> to tensor<4x4xf32>
    return %3 : tensor<4x4xf32>
  }
}

