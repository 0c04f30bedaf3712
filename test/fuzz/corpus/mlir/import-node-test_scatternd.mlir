module {
  func.func @main(%arg0: tensor<4x4x4xf32> {bwc.name = "data"}, %arg1: tensor<2x1xi64> {bwc.name = "indices"}, %arg2: tensor<2x4x4xf32> {bwc.name = "updates"}) -> (tensor<4x4x4xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<4> : tensor<1x1xi64>
    %1 = bwc.binary add %arg1, %0 : (tensor<2x1xi64>, tensor<1x1xi64>) -> tensor<2x1xi64>
    %2 = bwc.constant dense<0> : tensor<i64>
    %3 = bwc.binary lt %arg1, %2 : (tensor<2x1xi64>, tensor<i64>) -> tensor<2x1xi1>
    %4 = bwc.select %3, %1, %arg1 : (tensor<2x1xi1>, tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x1xi64>
    %5 = bwc.constant dense<1> : tensor<1x1xi64>
    %6 = bwc.binary mul %4, %5 : (tensor<2x1xi64>, tensor<1x1xi64>) -> tensor<2x1xi64>
    %7 = bwc.reduce sum %6 axes = [1] keepdims = false : (tensor<2x1xi64>) -> tensor<2xi64>
    %8 = bwc.reshape %7 : (tensor<2xi64>) -> tensor<2x1xi64>
    %9 = bwc.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
    %10 = bwc.binary eq %8, %9 : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi1>
    %11 = bwc.reshape %10 : (tensor<2x4xi1>) -> tensor<2x4x1x1xi1>
    %12 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %13 = bwc.reshape %arg2 : (tensor<2x4x4xf32>) -> tensor<2x1x4x4xf32>
    %14 = bwc.select %11, %13, %12 : (tensor<2x4x1x1xi1>, tensor<2x1x4x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %15 = bwc.reduce sum %14 axes = [0] keepdims = false : (tensor<2x4x4x4xf32>) -> tensor<4x4x4xf32>
    %16 = bwc.cast %10 : tensor<2x4xi1> to tensor<2x4xi32>
    %17 = bwc.reduce sum %16 axes = [0] keepdims = false : (tensor<2x4xi32>) -> tensor<4xi32>
    %18 = bwc.reshape %17 : (tensor<4xi32>) -> tensor<4x1x1xi32>
    %19 = bwc.constant dense<0> : tensor<i32>
    %20 = bwc.binary gt %18, %19 : (tensor<4x1x1xi32>, tensor<i32>) -> tensor<4x1x1xi1>
    %21 = bwc.select %20, %15, %arg0 : (tensor<4x1x1xi1>, tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    return %21 : tensor<4x4x4xf32>
  }
}

