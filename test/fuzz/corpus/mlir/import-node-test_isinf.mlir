module {
  func.func @main(%arg0: tensor<6xf32> {bwc.name = "x"}) -> (tensor<6xi1> {bwc.name = "y"}) {
    %0 = bwc.constant dense<0x7F800000> : tensor<f32>
    %1 = bwc.binary eq %arg0, %0 : (tensor<6xf32>, tensor<f32>) -> tensor<6xi1>
    %2 = bwc.constant dense<0xFF800000> : tensor<f32>
    %3 = bwc.binary eq %arg0, %2 : (tensor<6xf32>, tensor<f32>) -> tensor<6xi1>
    %4 = bwc.binary or %1, %3 : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
    return %4 : tensor<6xi1>
  }
}

