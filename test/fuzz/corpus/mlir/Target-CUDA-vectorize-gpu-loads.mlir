func.func @main(%a: tensor<1001xf32>, %b: tensor<1001xf32>, %x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<1001xf32>, tensor<1024xf32>) {
  %c = bwc.binary add %a, %b : (tensor<1001xf32>, tensor<1001xf32>) -> tensor<1001xf32>
  %s = bwc.binary add %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %c, %s : tensor<1001xf32>, tensor<1024xf32>
}
