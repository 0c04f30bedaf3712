module {
  func.func @main(%arg0: tensor<1x3x32xf32> {bwc.name = "x"}) -> (tensor<1x3x31xf32> {bwc.name = "y"}) {
    %0 = bwc.pool max %arg0 kernel = [2] strides = [1] dilations = [1] pads = [0, 0] ceil_mode = false count_include_pad = false : (tensor<1x3x32xf32>) -> tensor<1x3x31xf32>
    return %0 : tensor<1x3x31xf32>
  }
}

