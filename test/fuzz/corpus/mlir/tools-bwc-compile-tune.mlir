func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
