module {
  func.func @main(%arg0: tensor<2x4xui8> {bwc.name = "a"}, %arg1: tensor<1xf32> {bwc.name = "a_scale"}, %arg2: tensor<1xui8> {bwc.name = "a_zero_point"}, %arg3: tensor<4x3xui8> {bwc.name = "b"}, %arg4: tensor<1xf32> {bwc.name = "b_scale"}, %arg5: tensor<1xui8> {bwc.name = "b_zero_point"}, %arg6: tensor<1xf32> {bwc.name = "y_scale"}, %arg7: tensor<1xui8> {bwc.name = "y_zero_point"}) -> (tensor<2x3xui8> {bwc.name = "y"}) {
    %0 = bwc.cast %arg0 : tensor<2x4xui8> to tensor<2x4xi32>
    %1 = bwc.cast %arg2 : tensor<1xui8> to tensor<1xi32>
    %2 = bwc.reshape %1 : (tensor<1xi32>) -> tensor<i32>
    %3 = bwc.binary sub %0, %2 : (tensor<2x4xi32>, tensor<i32>) -> tensor<2x4xi32>
    %4 = bwc.cast %arg3 : tensor<4x3xui8> to tensor<4x3xi32>
    %5 = bwc.cast %arg5 : tensor<1xui8> to tensor<1xi32>
    %6 = bwc.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %7 = bwc.binary sub %4, %6 : (tensor<4x3xi32>, tensor<i32>) -> tensor<4x3xi32>
    %8 = bwc.matmul %3, %7 : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
    %9 = bwc.reshape %arg6 : (tensor<1xf32>) -> tensor<f32>
    %10 = bwc.reshape %arg4 : (tensor<1xf32>) -> tensor<f32>
    %11 = bwc.reshape %arg1 : (tensor<1xf32>) -> tensor<f32>
    %12 = bwc.binary mul %11, %10 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %13 = bwc.binary div %12, %9 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %14 = bwc.reshape %arg7 : (tensor<1xui8>) -> tensor<ui8>
    %15 = bwc.cast %8 : tensor<2x3xi32> to tensor<2x3xf32>
    %16 = bwc.binary mul %15, %13 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %17 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %18 = bwc.binary div %16, %17 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %19 = bwc.unary round %18 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %20 = bwc.cast %14 : tensor<ui8> to tensor<f32>
    %21 = bwc.binary add %19, %20 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %22 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %23 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %24 = bwc.binary max %21, %23 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %25 = bwc.binary min %24, %22 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %26 = bwc.cast %25 : tensor<2x3xf32> to tensor<2x3xui8>
    return %26 : tensor<2x3xui8>
  }
}

