func.func @main(%x: tensor<8x1000xf32>, %a: tensor<20x24xbf16>, %b: tensor<24x40xbf16>, %y: tensor<1000xf32>) -> (tensor<8x1000xf32>, tensor<20x40xbf16>, tensor<1000xf32>) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  %e = bwc.unary exp %d : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %o = bwc.binary div %e, %s : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  %mm = bwc.matmul %a, %b : (tensor<20x24xbf16>, tensor<24x40xbf16>) -> tensor<20x40xbf16>
  %t = bwc.unary tanh %y : (tensor<1000xf32>) -> tensor<1000xf32>
  return %o, %mm, %t : tensor<8x1000xf32>, tensor<20x40xbf16>, tensor<1000xf32>
}
