module {
  func.func @main(%arg0: tensor<f32> {bwc.name = "R"}, %arg1: tensor<i64> {bwc.name = "T"}, %arg2: tensor<1xf32> {bwc.name = "X"}, %arg3: tensor<1xf32> {bwc.name = "G"}, %arg4: tensor<1xf32> {bwc.name = "H"}) -> (tensor<1xf32> {bwc.name = "X_new"}, tensor<1xf32> {bwc.name = "H_new"}) {
    %0 = bwc.cast %arg1 : tensor<i64> to tensor<f32>
    %1 = bwc.constant dense<1.000000e-01> : tensor<f32>
    %2 = bwc.binary mul %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %4 = bwc.binary add %3, %2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %5 = bwc.binary div %arg0, %4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %6 = bwc.constant dense<1.000000e-03> : tensor<f32>
    %7 = bwc.binary mul %6, %arg2 : (tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
    %8 = bwc.binary add %7, %arg3 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %9 = bwc.binary mul %8, %8 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %10 = bwc.binary add %arg4, %9 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %11 = bwc.constant dense<9.99999974E-6> : tensor<f32>
    %12 = bwc.unary sqrt %10 : (tensor<1xf32>) -> tensor<1xf32>
    %13 = bwc.binary add %12, %11 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %14 = bwc.binary mul %5, %8 : (tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
    %15 = bwc.binary div %14, %13 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %16 = bwc.binary sub %arg2, %15 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    return %16, %10 : tensor<1xf32>, tensor<1xf32>
  }
}

