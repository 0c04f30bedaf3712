module {
  func.func @main(%arg0: tensor<3x5xf32> {bwc.name = "input"}, %arg1: tensor<3xi64> {bwc.name = "target"}) -> (tensor<3xf32> {bwc.name = "loss"}) {
    %0 = bwc.constant dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi64>
    %1 = bwc.reshape %arg1 : (tensor<3xi64>) -> tensor<3x1xi64>
    %2 = bwc.binary eq %1, %0 : (tensor<3x1xi64>, tensor<1x5xi64>) -> tensor<3x5xi1>
    %3 = bwc.cast %2 : tensor<3x5xi1> to tensor<3x5xf32>
    %4 = bwc.binary mul %arg0, %3 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %5 = bwc.reduce sum %4 axes = [1] keepdims = false : (tensor<3x5xf32>) -> tensor<3xf32>
    %6 = bwc.unary neg %5 : (tensor<3xf32>) -> tensor<3xf32>
    return %6 : tensor<3xf32>
  }
}

