func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = bwc.unary neg %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  %2 = bwc.unary abs %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  %3 = bwc.binary mul %1, %2 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %4 = bwc.unary tanh %3 : (tensor<1024xf32>) -> tensor<1024xf32>
  %5 = bwc.binary add %4, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %5 : tensor<1024xf32>
}
