func.func @main(%x: tensor<16384x4096xf32>, %y: tensor<16384x4096xf32>, %z: tensor<100x40xf32>) -> (tensor<4096xf32>, tensor<16384x4096xf32>, tensor<100x40xf32>) {
  %cs = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16384x4096xf32>) -> tensor<4096xf32>
  %ct = bwc.unary tanh %cs : (tensor<4096xf32>) -> tensor<4096xf32>
  %m = bwc.reduce max %y axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %d = bwc.binary sub %y, %m : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  %e = bwc.unary exp %d : (tensor<16384x4096xf32>) -> tensor<16384x4096xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %o = bwc.binary div %e, %s : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  %zm = bwc.reduce max %z axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %zd = bwc.binary sub %z, %zm : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  %ze = bwc.unary exp %zd : (tensor<100x40xf32>) -> tensor<100x40xf32>
  %zs = bwc.reduce sum %ze axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %zo = bwc.binary div %ze, %zs : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  return %ct, %o, %zo : tensor<4096xf32>, tensor<16384x4096xf32>, tensor<100x40xf32>
}
