module {
  func.func @main(%arg0: tensor<f32> {bwc.name = "R"}, %arg1: tensor<i64> {bwc.name = "T"}, %arg2: tensor<2xf32> {bwc.name = "X"}, %arg3: tensor<2xf32> {bwc.name = "G"}, %arg4: tensor<2xf32> {bwc.name = "V"}, %arg5: tensor<2xf32> {bwc.name = "H"}) -> (tensor<2xf32> {bwc.name = "X_new"}, tensor<2xf32> {bwc.name = "V_new"}, tensor<2xf32> {bwc.name = "H_new"}) {
    %0 = bwc.cast %arg1 : tensor<i64> to tensor<f32>
    %1 = bwc.constant dense<0.949999988> : tensor<f32>
    %2 = bwc.binary pow %1, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = bwc.constant dense<1.000000e-01> : tensor<f32>
    %4 = bwc.binary pow %3, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %5 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %6 = bwc.binary sub %5, %2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %7 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %8 = bwc.binary sub %7, %4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %9 = bwc.unary sqrt %8 : (tensor<f32>) -> tensor<f32>
    %10 = bwc.binary mul %arg0, %9 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %11 = bwc.binary div %10, %6 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %12 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %13 = bwc.binary gt %0, %12 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %14 = bwc.select %13, %11, %arg0 : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %15 = bwc.constant dense<1.000000e-03> : tensor<f32>
    %16 = bwc.binary mul %15, %arg2 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %17 = bwc.binary add %16, %arg3 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %18 = bwc.constant dense<0.0500000119> : tensor<f32>
    %19 = bwc.binary mul %18, %17 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %20 = bwc.constant dense<0.949999988> : tensor<f32>
    %21 = bwc.binary mul %20, %arg4 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %22 = bwc.binary add %21, %19 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %23 = bwc.binary mul %17, %17 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %24 = bwc.constant dense<0.899999976> : tensor<f32>
    %25 = bwc.binary mul %24, %23 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %26 = bwc.constant dense<1.000000e-01> : tensor<f32>
    %27 = bwc.binary mul %26, %arg5 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %28 = bwc.binary add %27, %25 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %29 = bwc.constant dense<1.000000e-07> : tensor<f32>
    %30 = bwc.unary sqrt %28 : (tensor<2xf32>) -> tensor<2xf32>
    %31 = bwc.binary add %30, %29 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %32 = bwc.binary div %22, %31 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %33 = bwc.binary mul %14, %32 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %34 = bwc.binary sub %arg2, %33 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %35 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %36 = bwc.binary mul %35, %34 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    return %36, %22, %28 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}

