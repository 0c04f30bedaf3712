module {
  func.func @main(%arg0: tensor<2x2xf32> {bwc.name = "x"}) -> (tensor<f32> {bwc.name = "y"}) {
    %0 = bwc.slice %arg0 starts = [0, 0] steps = [1, 1] : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %1 = bwc.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
    %2 = bwc.slice %arg0 starts = [1, 1] steps = [1, 1] : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %3 = bwc.reshape %2 : (tensor<1x1xf32>) -> tensor<f32>
    %4 = bwc.binary mul %1, %3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %5 = bwc.slice %arg0 starts = [0, 1] steps = [1, 1] : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %6 = bwc.reshape %5 : (tensor<1x1xf32>) -> tensor<f32>
    %7 = bwc.slice %arg0 starts = [1, 0] steps = [1, 1] : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %8 = bwc.reshape %7 : (tensor<1x1xf32>) -> tensor<f32>
    %9 = bwc.binary mul %6, %8 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %10 = bwc.binary sub %4, %9 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %10 : tensor<f32>
  }
}

