module {
  func.func @main(%arg0: tensor<1x1x7x7xui8> {bwc.name = "x"}, %arg1: tensor<f32> {bwc.name = "x_scale"}, %arg2: tensor<ui8> {bwc.name = "x_zero_point"}, %arg3: tensor<1x1x1x1xui8> {bwc.name = "w"}, %arg4: tensor<1xf32> {bwc.name = "w_scale"}, %arg5: tensor<1xui8> {bwc.name = "w_zero_point"}, %arg6: tensor<f32> {bwc.name = "y_scale"}, %arg7: tensor<ui8> {bwc.name = "y_zero_point"}) -> (tensor<1x1x7x7xui8> {bwc.name = "y"}) {
    %0 = bwc.cast %arg0 : tensor<1x1x7x7xui8> to tensor<1x1x7x7xf64>
    %1 = bwc.cast %arg2 : tensor<ui8> to tensor<f64>
    %2 = bwc.binary sub %0, %1 : (tensor<1x1x7x7xf64>, tensor<f64>) -> tensor<1x1x7x7xf64>
    %3 = bwc.cast %arg3 : tensor<1x1x1x1xui8> to tensor<1x1x1x1xf64>
    %4 = bwc.cast %arg5 : tensor<1xui8> to tensor<1xf64>
    %5 = bwc.reshape %4 : (tensor<1xf64>) -> tensor<f64>
    %6 = bwc.binary sub %3, %5 : (tensor<1x1x1x1xf64>, tensor<f64>) -> tensor<1x1x1x1xf64>
    %7 = bwc.conv %2, %6 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x1x7x7xf64>, tensor<1x1x1x1xf64>) -> tensor<1x1x7x7xf64>
    %8 = bwc.reshape %arg4 : (tensor<1xf32>) -> tensor<f32>
    %9 = bwc.binary mul %arg1, %8 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %10 = bwc.binary div %9, %arg6 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %11 = bwc.cast %7 : tensor<1x1x7x7xf64> to tensor<1x1x7x7xf32>
    %12 = bwc.binary mul %11, %10 : (tensor<1x1x7x7xf32>, tensor<f32>) -> tensor<1x1x7x7xf32>
    %13 = bwc.constant dense<1.000000e+00> : tensor<f32>
    %14 = bwc.binary div %12, %13 : (tensor<1x1x7x7xf32>, tensor<f32>) -> tensor<1x1x7x7xf32>
    %15 = bwc.unary round %14 : (tensor<1x1x7x7xf32>) -> tensor<1x1x7x7xf32>
    %16 = bwc.cast %arg7 : tensor<ui8> to tensor<f32>
    %17 = bwc.binary add %15, %16 : (tensor<1x1x7x7xf32>, tensor<f32>) -> tensor<1x1x7x7xf32>
    %18 = bwc.constant dense<2.550000e+02> : tensor<f32>
    %19 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %20 = bwc.binary max %17, %19 : (tensor<1x1x7x7xf32>, tensor<f32>) -> tensor<1x1x7x7xf32>
    %21 = bwc.binary min %20, %18 : (tensor<1x1x7x7xf32>, tensor<f32>) -> tensor<1x1x7x7xf32>
    %22 = bwc.cast %21 : tensor<1x1x7x7xf32> to tensor<1x1x7x7xui8>
    return %22 : tensor<1x1x7x7xui8>
  }
}

