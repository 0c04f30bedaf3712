module {
  func.func @main(%arg0: tensor<2xf32> {bwc.name = "initial"}, %arg1: tensor<3x2xf32> {bwc.name = "x"}) -> (tensor<2xf32> {bwc.name = "y"}, tensor<3x2xf32> {bwc.name = "z"}) {
    %0 = bwc.slice %arg1 starts = [0, 0] steps = [1, 1] : (tensor<3x2xf32>) -> tensor<1x2xf32>
    %1 = bwc.reshape %0 : (tensor<1x2xf32>) -> tensor<2xf32>
    %2 = bwc.binary add %arg0, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = bwc.slice %arg1 starts = [1, 0] steps = [1, 1] : (tensor<3x2xf32>) -> tensor<1x2xf32>
    %4 = bwc.reshape %3 : (tensor<1x2xf32>) -> tensor<2xf32>
    %5 = bwc.binary add %2, %4 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %6 = bwc.slice %arg1 starts = [2, 0] steps = [1, 1] : (tensor<3x2xf32>) -> tensor<1x2xf32>
    %7 = bwc.reshape %6 : (tensor<1x2xf32>) -> tensor<2xf32>
    %8 = bwc.binary add %5, %7 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %9 = bwc.reshape %2 : (tensor<2xf32>) -> tensor<1x2xf32>
    %10 = bwc.reshape %5 : (tensor<2xf32>) -> tensor<1x2xf32>
    %11 = bwc.reshape %8 : (tensor<2xf32>) -> tensor<1x2xf32>
    %12 = bwc.concat %9, %10, %11 axis = 0 : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
    return %8, %12 : tensor<2xf32>, tensor<3x2xf32>
  }
}

