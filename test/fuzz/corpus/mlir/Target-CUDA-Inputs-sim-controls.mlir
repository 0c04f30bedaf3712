func.func @main(%x: tensor<64x1000xf32> {bwc.name = "x"}, %a: tensor<64x128xf32> {bwc.name = "a"},
                %b: tensor<128x96xf32> {bwc.name = "b"}, %y: tensor<1000xf32> {bwc.name = "y"}) -> (tensor<64x1000xf32>, tensor<64xf32>, tensor<1000xf32>) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %e = bwc.unary exp %d : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %o = bwc.binary div %e, %s : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %mm = bwc.matmul %a, %b : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  %r = bwc.reduce sum %mm axes = [1] keepdims = false : (tensor<64x96xf32>) -> tensor<64xf32>
  %t = bwc.unary tanh %y : (tensor<1000xf32>) -> tensor<1000xf32>
  return %o, %r, %t : tensor<64x1000xf32>, tensor<64xf32>, tensor<1000xf32>
}
