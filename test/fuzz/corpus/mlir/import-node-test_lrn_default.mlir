module {
  func.func @main(%arg0: tensor<5x5x5x5xf32> {bwc.name = "x"}) -> (tensor<5x5x5x5xf32> {bwc.name = "y"}) {
    %0 = bwc.binary mul %arg0, %arg0 : (tensor<5x5x5x5xf32>, tensor<5x5x5x5xf32>) -> tensor<5x5x5x5xf32>
    %1 = bwc.constant dense<0.000000e+00> : tensor<5x1x5x5xf32>
    %2 = bwc.constant dense<0.000000e+00> : tensor<5x1x5x5xf32>
    %3 = bwc.concat %1, %0, %2 axis = 1 : (tensor<5x1x5x5xf32>, tensor<5x5x5x5xf32>, tensor<5x1x5x5xf32>) -> tensor<5x7x5x5xf32>
    %4 = bwc.slice %3 starts = [0, 0, 0, 0] steps = [1, 1, 1, 1] : (tensor<5x7x5x5xf32>) -> tensor<5x5x5x5xf32>
    %5 = bwc.slice %3 starts = [0, 1, 0, 0] steps = [1, 1, 1, 1] : (tensor<5x7x5x5xf32>) -> tensor<5x5x5x5xf32>
    %6 = bwc.binary add %4, %5 : (tensor<5x5x5x5xf32>, tensor<5x5x5x5xf32>) -> tensor<5x5x5x5xf32>
    %7 = bwc.slice %3 starts = [0, 2, 0, 0] steps = [1, 1, 1, 1] : (tensor<5x7x5x5xf32>) -> tensor<5x5x5x5xf32>
    %8 = bwc.binary add %6, %7 : (tensor<5x5x5x5xf32>, tensor<5x5x5x5xf32>) -> tensor<5x5x5x5xf32>
    %9 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %10 = bwc.constant dense<3.33333337E-5> : tensor<f32>
    %11 = bwc.binary mul %8, %10 : (tensor<5x5x5x5xf32>, tensor<f32>) -> tensor<5x5x5x5xf32>
    %12 = bwc.binary add %11, %9 : (tensor<5x5x5x5xf32>, tensor<f32>) -> tensor<5x5x5x5xf32>
    %13 = bwc.constant dense<7.500000e-01> : tensor<f32>
    %14 = bwc.binary pow %12, %13 : (tensor<5x5x5x5xf32>, tensor<f32>) -> tensor<5x5x5x5xf32>
    %15 = bwc.binary div %arg0, %14 : (tensor<5x5x5x5xf32>, tensor<5x5x5x5xf32>) -> tensor<5x5x5x5xf32>
    return %15 : tensor<5x5x5x5xf32>
  }
}

