module {
  func.func @main(%arg0: tensor<1x3x2xf32> {bwc.name = "X"}, %arg1: tensor<1x4x2xf32> {bwc.name = "W"}, %arg2: tensor<1x4x4xf32> {bwc.name = "R"}) -> (tensor<1x3x4xf32> {bwc.name = "Y_h"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<3x4xf32>
    %1 = bwc.reshape %arg0 : (tensor<1x3x2xf32>) -> tensor<3x2xf32>
    %2 = bwc.reshape %arg1 : (tensor<1x4x2xf32>) -> tensor<4x2xf32>
    %3 = bwc.transpose %2 perm = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>
    %4 = bwc.reshape %arg2 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %5 = bwc.transpose %4 perm = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %6 = bwc.matmul %1, %3 : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    %7 = bwc.matmul %0, %5 : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
    %8 = bwc.binary add %6, %7 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %9 = bwc.unary tanh %8 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %10 = bwc.reshape %9 : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    return %10 : tensor<1x3x4xf32>
  }
}

