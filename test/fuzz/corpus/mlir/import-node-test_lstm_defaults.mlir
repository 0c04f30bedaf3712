module {
  func.func @main(%arg0: tensor<1x3x2xf32> {bwc.name = "X"}, %arg1: tensor<1x12x2xf32> {bwc.name = "W"}, %arg2: tensor<1x12x3xf32> {bwc.name = "R"}) -> (tensor<1x3x3xf32> {bwc.name = "Y_h"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<3x3xf32>
    %1 = bwc.reshape %arg0 : (tensor<1x3x2xf32>) -> tensor<3x2xf32>
    %2 = bwc.reshape %arg1 : (tensor<1x12x2xf32>) -> tensor<12x2xf32>
    %3 = bwc.transpose %2 perm = [1, 0] : (tensor<12x2xf32>) -> tensor<2x12xf32>
    %4 = bwc.reshape %arg2 : (tensor<1x12x3xf32>) -> tensor<12x3xf32>
    %5 = bwc.transpose %4 perm = [1, 0] : (tensor<12x3xf32>) -> tensor<3x12xf32>
    %6 = bwc.matmul %1, %3 : (tensor<3x2xf32>, tensor<2x12xf32>) -> tensor<3x12xf32>
    %7 = bwc.matmul %0, %5 : (tensor<3x3xf32>, tensor<3x12xf32>) -> tensor<3x12xf32>
    %8 = bwc.binary add %6, %7 : (tensor<3x12xf32>, tensor<3x12xf32>) -> tensor<3x12xf32>
    %9 = bwc.slice %8 starts = [0, 0] steps = [1, 1] : (tensor<3x12xf32>) -> tensor<3x3xf32>
    %10 = bwc.slice %8 starts = [0, 3] steps = [1, 1] : (tensor<3x12xf32>) -> tensor<3x3xf32>
    %11 = bwc.slice %8 starts = [0, 6] steps = [1, 1] : (tensor<3x12xf32>) -> tensor<3x3xf32>
    %12 = bwc.slice %8 starts = [0, 9] steps = [1, 1] : (tensor<3x12xf32>) -> tensor<3x3xf32>
    %13 = bwc.unary sigmoid %9 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %14 = bwc.unary sigmoid %11 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %15 = bwc.unary tanh %12 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %16 = bwc.binary mul %13, %15 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %17 = bwc.binary mul %14, %0 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %18 = bwc.binary add %17, %16 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %19 = bwc.unary sigmoid %10 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %20 = bwc.unary tanh %18 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %21 = bwc.binary mul %19, %20 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %22 = bwc.reshape %21 : (tensor<3x3xf32>) -> tensor<1x3x3xf32>
    return %22 : tensor<1x3x3xf32>
  }
}

