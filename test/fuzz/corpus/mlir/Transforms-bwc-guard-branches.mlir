func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %s = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %zero = bwc.constant dense<0.0> : tensor<f32>
  %c = bwc.binary gt %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %w = bwc.constant dense<2.0> : tensor<64x64xf32>
  %x2 = bwc.reshape %x : (tensor<64xf32>) -> tensor<1x64xf32>
  %m = bwc.matmul %x2, %w : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %t = bwc.reshape %m : (tensor<1x64xf32>) -> tensor<64xf32>
  %e = bwc.unary abs %x : (tensor<64xf32>) -> tensor<64xf32>
  %r = bwc.select %c, %t, %e {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
