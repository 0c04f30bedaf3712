func.func @main(%x: tensor<1000x64xf32>) -> tensor<1x64xf32> {
  %u0 = bwc.unary abs %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r0 = bwc.reduce sum %u0 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r1 = bwc.reduce max %u0 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u1 = bwc.unary neg %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r2 = bwc.reduce sum %u1 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r3 = bwc.reduce max %u1 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u2 = bwc.unary exp %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r4 = bwc.reduce sum %u2 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r5 = bwc.reduce max %u2 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u3 = bwc.unary sqrt %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r6 = bwc.reduce sum %u3 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r7 = bwc.reduce max %u3 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u4 = bwc.unary tanh %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r8 = bwc.reduce sum %u4 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r9 = bwc.reduce max %u4 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u5 = bwc.unary sigmoid %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r10 = bwc.reduce sum %u5 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %r11 = bwc.reduce max %u5 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %u6 = bwc.unary floor %x : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  %r12 = bwc.reduce sum %u6 axes = [0] keepdims = true : (tensor<1000x64xf32>) -> tensor<1x64xf32>
  %a0 = bwc.binary add %r0, %r1 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a1 = bwc.binary add %a0, %r2 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a2 = bwc.binary add %a1, %r3 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a3 = bwc.binary add %a2, %r4 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a4 = bwc.binary add %a3, %r5 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a5 = bwc.binary add %a4, %r6 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a6 = bwc.binary add %a5, %r7 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a7 = bwc.binary add %a6, %r8 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a8 = bwc.binary add %a7, %r9 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a9 = bwc.binary add %a8, %r10 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a10 = bwc.binary add %a9, %r11 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %a11 = bwc.binary add %a10, %r12 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  return %a11 : tensor<1x64xf32>
}
