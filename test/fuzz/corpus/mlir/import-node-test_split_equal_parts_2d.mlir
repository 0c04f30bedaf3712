module {
  func.func @main(%arg0: tensor<2x6xf32> {bwc.name = "input"}) -> (tensor<2x3xf32> {bwc.name = "output_1"}, tensor<2x3xf32> {bwc.name = "output_2"}) {
    %0 = bwc.slice %arg0 starts = [0, 0] steps = [1, 1] : (tensor<2x6xf32>) -> tensor<2x3xf32>
    %1 = bwc.slice %arg0 starts = [0, 3] steps = [1, 1] : (tensor<2x6xf32>) -> tensor<2x3xf32>
    return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
  }
}

