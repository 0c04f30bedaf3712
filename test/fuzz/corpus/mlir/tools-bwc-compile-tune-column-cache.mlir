func.func @main(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %d = bwc.binary sub %x, %m : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  %e = bwc.unary exp %d : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %y = bwc.binary div %e, %s : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  return %y : tensor<1024x64xf32>
}
