module {
  func.func @main(%arg0: tensor<6xf32> {bwc.name = "x"}) -> (tensor<6xui8> {bwc.name = "y"}, tensor<f32> {bwc.name = "y_scale"}, tensor<ui8> {bwc.name = "y_zero_point"}) {
    %0 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %1 = bwc.reduce max %arg0 axes = [0] keepdims = false : (tensor<6xf32>) -> tensor<f32>
    %2 = bwc.binary max %1, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = bwc.reduce min %arg0 axes = [0] keepdims = false : (tensor<6xf32>) -> tensor<f32>
    %4 = bwc.binary min %3, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %5 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %6 = bwc.binary sub %2, %4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %7 = bwc.binary div %6, %5 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %8 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %9 = bwc.binary eq %7, %0 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %10 = bwc.select %9, %8, %7 : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %11 = bwc.unary neg %4 : (tensor<f32>) -> tensor<f32>
    %12 = bwc.binary div %11, %10 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %13 = bwc.unary round %12 : (tensor<f32>) -> tensor<f32>
    %14 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %15 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %16 = bwc.binary max %13, %15 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %17 = bwc.binary min %16, %14 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %18 = bwc.cast %17 : tensor<f32> to tensor<ui8>
    %19 = bwc.binary div %arg0, %10 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %20 = bwc.unary round %19 : (tensor<6xf32>) -> tensor<6xf32>
    %21 = bwc.cast %18 : tensor<ui8> to tensor<f32>
    %22 = bwc.binary add %20, %21 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %23 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %24 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %25 = bwc.binary max %22, %24 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %26 = bwc.binary min %25, %23 : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    %27 = bwc.cast %26 : tensor<6xf32> to tensor<6xui8>
    return %27, %7, %18 : tensor<6xui8>, tensor<f32>, tensor<ui8>
  }
}

