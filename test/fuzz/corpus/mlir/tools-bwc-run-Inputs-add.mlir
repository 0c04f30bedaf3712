func.func @main(%x: tensor<2x3xf32> {bwc.name = "x"}, %y: tensor<2x3xf32> {bwc.name = "y"}) -> tensor<2x3xf32> {
  %s = bwc.binary add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
