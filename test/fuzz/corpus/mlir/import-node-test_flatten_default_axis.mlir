module {
  func.func @main(%arg0: tensor<5x4x3x2xf32> {bwc.name = "a"}) -> (tensor<5x24xf32> {bwc.name = "b"}) {
    %0 = bwc.reshape %arg0 : (tensor<5x4x3x2xf32>) -> tensor<5x24xf32>
    return %0 : tensor<5x24xf32>
  }
}

