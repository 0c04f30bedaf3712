module {
  func.func @main(%arg0: tensor<3x5xf32> {bwc.name = "x"}, %arg1: tensor<3xi64> {bwc.name = "y"}) -> (tensor<f32> {bwc.name = "z"}) {
    %0 = bwc.reduce max %arg0 axes = [1] keepdims = true : (tensor<3x5xf32>) -> tensor<3x1xf32>
    %1 = bwc.binary sub %arg0, %0 : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    %2 = bwc.unary exp %1 : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %3 = bwc.reduce sum %2 axes = [1] keepdims = true : (tensor<3x5xf32>) -> tensor<3x1xf32>
    %4 = bwc.unary log %3 : (tensor<3x1xf32>) -> tensor<3x1xf32>
    %5 = bwc.binary sub %1, %4 : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    %6 = bwc.constant dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi64>
    %7 = bwc.reshape %arg1 : (tensor<3xi64>) -> tensor<3x1xi64>
    %8 = bwc.binary eq %7, %6 : (tensor<3x1xi64>, tensor<1x5xi64>) -> tensor<3x5xi1>
    %9 = bwc.cast %8 : tensor<3x5xi1> to tensor<3x5xf32>
    %10 = bwc.binary mul %5, %9 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %11 = bwc.reduce sum %10 axes = [1] keepdims = false : (tensor<3x5xf32>) -> tensor<3xf32>
    %12 = bwc.unary neg %11 : (tensor<3xf32>) -> tensor<3xf32>
    %13 = bwc.reduce sum %12 axes = [0] keepdims = false : (tensor<3xf32>) -> tensor<f32>
    return %13 : tensor<f32>
  }
}

