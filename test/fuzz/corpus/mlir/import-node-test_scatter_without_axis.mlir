module {
  func.func @main(%arg0: tensor<3x3xf32> {bwc.name = "data"}, %arg1: tensor<2x3xi64> {bwc.name = "indices"}, %arg2: tensor<2x3xf32> {bwc.name = "updates"}) -> (tensor<3x3xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<3> : tensor<i64>
    %1 = bwc.binary add %arg1, %0 : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
    %2 = bwc.constant dense<0> : tensor<i64>
    %3 = bwc.binary lt %arg1, %2 : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi1>
    %4 = bwc.select %3, %1, %arg1 : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
    %5 = bwc.constant dense<[[[0], [1], [2]]]> : tensor<1x3x1xi64>
    %6 = bwc.reshape %4 : (tensor<2x3xi64>) -> tensor<2x1x3xi64>
    %7 = bwc.binary eq %6, %5 : (tensor<2x1x3xi64>, tensor<1x3x1xi64>) -> tensor<2x3x3xi1>
    %8 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %9 = bwc.reshape %arg2 : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    %10 = bwc.select %7, %9, %8 : (tensor<2x3x3xi1>, tensor<2x1x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
    %11 = bwc.reduce sum %10 axes = [0] keepdims = false : (tensor<2x3x3xf32>) -> tensor<3x3xf32>
    %12 = bwc.cast %7 : tensor<2x3x3xi1> to tensor<2x3x3xi32>
    %13 = bwc.reduce sum %12 axes = [0] keepdims = false : (tensor<2x3x3xi32>) -> tensor<3x3xi32>
    %14 = bwc.constant dense<0> : tensor<i32>
    %15 = bwc.binary gt %13, %14 : (tensor<3x3xi32>, tensor<i32>) -> tensor<3x3xi1>
    %16 = bwc.select %15, %11, %arg0 : (tensor<3x3xi1>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    return %16 : tensor<3x3xf32>
  }
}

