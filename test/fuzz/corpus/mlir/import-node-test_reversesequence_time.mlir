module {
  func.func @main(%arg0: tensor<4x4xf32> {bwc.name = "x"}, %arg1: tensor<4xi64> {bwc.name = "sequence_lens"}) -> (tensor<4x4xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<[[0], [1], [2], [3]]> : tensor<4x1xi64>
    %1 = bwc.reshape %arg1 : (tensor<4xi64>) -> tensor<1x4xi64>
    %2 = bwc.constant dense<1> : tensor<i64>
    %3 = bwc.binary sub %1, %2 : (tensor<1x4xi64>, tensor<i64>) -> tensor<1x4xi64>
    %4 = bwc.binary sub %3, %0 : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi64>
    %5 = bwc.binary lt %0, %1 : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
    %6 = bwc.select %5, %4, %0 : (tensor<4x4xi1>, tensor<4x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi64>
    %7 = bwc.constant dense<[[[0, 1, 2, 3]]]> : tensor<1x1x4xi64>
    %8 = bwc.reshape %6 : (tensor<4x4xi64>) -> tensor<4x4x1xi64>
    %9 = bwc.binary eq %8, %7 : (tensor<4x4x1xi64>, tensor<1x1x4xi64>) -> tensor<4x4x4xi1>
    %10 = bwc.transpose %arg0 perm = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %11 = bwc.reshape %10 : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %12 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %13 = bwc.select %9, %11, %12 : (tensor<4x4x4xi1>, tensor<1x4x4xf32>, tensor<f32>) -> tensor<4x4x4xf32>
    %14 = bwc.reduce sum %13 axes = [2] keepdims = false : (tensor<4x4x4xf32>) -> tensor<4x4xf32>
    return %14 : tensor<4x4xf32>
  }
}

