module {
  func.func @main(%arg0: tensor<1x3x32x32xf32> {bwc.name = "x"}) -> (tensor<1x3x32x32xf32> {bwc.name = "y"}) {
    %0 = bwc.unary erf %arg0 : (tensor<1x3x32x32xf32>) -> tensor<1x3x32x32xf32>
    return %0 : tensor<1x3x32x32xf32>
  }
}

