module {
  func.func @main(%arg0: tensor<1x1x5x5xf32> {bwc.name = "x"}, %arg1: tensor<1x1x3x3xf32> {bwc.name = "W"}) -> (tensor<1x1x5x5xf32> {bwc.name = "y"}) {
    %0 = bwc.conv %arg0, %arg1 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
    return %0 : tensor<1x1x5x5xf32>
  }
}

