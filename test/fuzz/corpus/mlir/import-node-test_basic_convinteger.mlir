module {
  func.func @main(%arg0: tensor<1x1x3x3xui8> {bwc.name = "x"}, %arg1: tensor<1x1x2x2xui8> {bwc.name = "w"}, %arg2: tensor<ui8> {bwc.name = "x_zero_point"}) -> (tensor<1x1x2x2xi32> {bwc.name = "y"}) {
    %0 = bwc.cast %arg0 : tensor<1x1x3x3xui8> to tensor<1x1x3x3xf64>
    %1 = bwc.cast %arg2 : tensor<ui8> to tensor<f64>
    %2 = bwc.binary sub %0, %1 : (tensor<1x1x3x3xf64>, tensor<f64>) -> tensor<1x1x3x3xf64>
    %3 = bwc.cast %arg1 : tensor<1x1x2x2xui8> to tensor<1x1x2x2xf64>
    %4 = bwc.conv %2, %3 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x1x3x3xf64>, tensor<1x1x2x2xf64>) -> tensor<1x1x2x2xf64>
    %5 = bwc.cast %4 : tensor<1x1x2x2xf64> to tensor<1x1x2x2xi32>
    return %5 : tensor<1x1x2x2xi32>
  }
}

