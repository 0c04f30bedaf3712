module {
  func.func @main(%arg0: tensor<f32> {bwc.name = "R"}, %arg1: tensor<i64> {bwc.name = "T"}, %arg2: tensor<2xf32> {bwc.name = "X"}, %arg3: tensor<2xf32> {bwc.name = "G"}, %arg4: tensor<2xf32> {bwc.name = "V"}) -> (tensor<2xf32> {bwc.name = "X_new"}, tensor<2xf32> {bwc.name = "V_new"}) {
    %0 = bwc.cast %arg1 : tensor<i64> to tensor<f32>
    %1 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %2 = bwc.constant dense<1.000000e-01> : tensor<f32>
    %3 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %4 = bwc.binary gt %0, %3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = bwc.select %4, %2, %1 : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %6 = bwc.constant dense<1.000000e-03> : tensor<f32>
    %7 = bwc.binary mul %6, %arg2 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %8 = bwc.binary add %7, %arg3 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %9 = bwc.binary mul %5, %8 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %10 = bwc.constant dense<0.949999988> : tensor<f32>
    %11 = bwc.binary mul %10, %arg4 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %12 = bwc.binary add %11, %9 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %13 = bwc.binary mul %arg0, %12 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %14 = bwc.binary sub %arg2, %13 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %14, %12 : tensor<2xf32>, tensor<2xf32>
  }
}

