module {
  func.func @main(%arg0: tensor<2x2xf32> {bwc.name = "data"}, %arg1: tensor<2x2xi64> {bwc.name = "indices"}) -> (tensor<2x2xf32> {bwc.name = "y"}) {
    %0 = bwc.reshape %arg0 : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
    %1 = bwc.constant dense<0> : tensor<i64>
    %2 = bwc.constant dense<2> : tensor<i64>
    %3 = bwc.binary add %arg1, %2 : (tensor<2x2xi64>, tensor<i64>) -> tensor<2x2xi64>
    %4 = bwc.binary lt %arg1, %1 : (tensor<2x2xi64>, tensor<i64>) -> tensor<2x2xi1>
    %5 = bwc.select %4, %3, %arg1 : (tensor<2x2xi1>, tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    %6 = bwc.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
    %7 = bwc.reshape %5 : (tensor<2x2xi64>) -> tensor<2x2x1xi64>
    %8 = bwc.binary eq %7, %6 : (tensor<2x2x1xi64>, tensor<1x1x2xi64>) -> tensor<2x2x2xi1>
    %9 = bwc.cast %8 : tensor<2x2x2xi1> to tensor<2x2x2xf32>
    %10 = bwc.binary mul %0, %9 : (tensor<2x1x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
    %11 = bwc.reduce sum %10 axes = [2] keepdims = false : (tensor<2x2x2xf32>) -> tensor<2x2xf32>
    return %11 : tensor<2x2xf32>
  }
}

