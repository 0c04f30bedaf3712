func.func @main(%x: tensor<3xf32> {bwc.name = "x"},
                %w: tensor<3xf32> {bwc.name = "w", bwc.trainable,
                                   bwc.initial_value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>})
    -> (tensor<3xf32> {bwc.name = "y"}) {
  %0 = bwc.binary mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
