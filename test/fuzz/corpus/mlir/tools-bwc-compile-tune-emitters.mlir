func.func @main(%x: tensor<64x1000xf32>, %y: tensor<4096x256xf32>, %a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> (tensor<64x1000xf32>, tensor<256xf32>, tensor<64x96xf32>) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %e = bwc.unary exp %d : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %o = bwc.binary div %e, %s : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %c = bwc.reduce sum %y axes = [0] keepdims = false : (tensor<4096x256xf32>) -> tensor<256xf32>
  %mm = bwc.matmul %a, %b : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  return %o, %c, %mm : tensor<64x1000xf32>, tensor<256xf32>, tensor<64x96xf32>
}
