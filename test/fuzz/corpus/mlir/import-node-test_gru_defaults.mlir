module {
  func.func @main(%arg0: tensor<1x3x2xf32> {bwc.name = "X"}, %arg1: tensor<1x15x2xf32> {bwc.name = "W"}, %arg2: tensor<1x15x5xf32> {bwc.name = "R"}) -> (tensor<1x3x5xf32> {bwc.name = "Y_h"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<3x5xf32>
    %1 = bwc.reshape %arg0 : (tensor<1x3x2xf32>) -> tensor<3x2xf32>
    %2 = bwc.reshape %arg1 : (tensor<1x15x2xf32>) -> tensor<15x2xf32>
    %3 = bwc.transpose %2 perm = [1, 0] : (tensor<15x2xf32>) -> tensor<2x15xf32>
    %4 = bwc.reshape %arg2 : (tensor<1x15x5xf32>) -> tensor<15x5xf32>
    %5 = bwc.transpose %4 perm = [1, 0] : (tensor<15x5xf32>) -> tensor<5x15xf32>
    %6 = bwc.matmul %1, %3 : (tensor<3x2xf32>, tensor<2x15xf32>) -> tensor<3x15xf32>
    %7 = bwc.slice %5 starts = [0, 0] steps = [1, 1] : (tensor<5x15xf32>) -> tensor<5x5xf32>
    %8 = bwc.matmul %0, %7 : (tensor<3x5xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
    %9 = bwc.slice %6 starts = [0, 0] steps = [1, 1] : (tensor<3x15xf32>) -> tensor<3x5xf32>
    %10 = bwc.binary add %9, %8 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %11 = bwc.unary sigmoid %10 : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %12 = bwc.slice %5 starts = [0, 5] steps = [1, 1] : (tensor<5x15xf32>) -> tensor<5x5xf32>
    %13 = bwc.matmul %0, %12 : (tensor<3x5xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
    %14 = bwc.slice %6 starts = [0, 5] steps = [1, 1] : (tensor<3x15xf32>) -> tensor<3x5xf32>
    %15 = bwc.binary add %14, %13 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %16 = bwc.unary sigmoid %15 : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %17 = bwc.slice %5 starts = [0, 10] steps = [1, 1] : (tensor<5x15xf32>) -> tensor<5x5xf32>
    %18 = bwc.binary mul %16, %0 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %19 = bwc.matmul %18, %17 : (tensor<3x5xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
    %20 = bwc.slice %6 starts = [0, 10] steps = [1, 1] : (tensor<3x15xf32>) -> tensor<3x5xf32>
    %21 = bwc.binary add %20, %19 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %22 = bwc.unary tanh %21 : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %23 = bwc.binary mul %11, %0 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %24 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %25 = bwc.binary sub %24, %11 : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %26 = bwc.binary mul %25, %22 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %27 = bwc.binary add %26, %23 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %28 = bwc.reshape %27 : (tensor<3x5xf32>) -> tensor<1x3x5xf32>
    return %28 : tensor<1x3x5xf32>
  }
}

