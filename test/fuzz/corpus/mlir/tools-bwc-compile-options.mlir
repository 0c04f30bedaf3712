func.func @main(%x: tensor<64x128xf32> {bwc.name = "x"}) -> (tensor<64x128xf32> {bwc.name = "y"}) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %e = bwc.unary exp %d : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %y = bwc.binary div %e, %s : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
