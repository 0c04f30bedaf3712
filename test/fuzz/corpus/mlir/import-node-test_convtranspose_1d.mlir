module {
  func.func @main(%arg0: tensor<1x1x3xf32> {bwc.name = "X"}, %arg1: tensor<1x2x3xf32> {bwc.name = "W"}) -> (tensor<1x2x5xf32> {bwc.name = "Y"}) {
    %0 = bwc.conv %arg0, %arg1 strides = [1] dilations = [1] pads = [0, 0] groups = 1 {output_padding = array<i64: 0>, transposed} : (tensor<1x1x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x5xf32>
    return %0 : tensor<1x2x5xf32>
  }
}

