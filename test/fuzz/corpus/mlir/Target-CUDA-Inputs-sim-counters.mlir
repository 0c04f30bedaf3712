func.func @main(%x: tensor<1024xf32> {bwc.name = "x"}, %y: tensor<1024xf32> {bwc.name = "y"},
                %t: tensor<1x64x64xf32> {bwc.name = "t"}) -> (tensor<1024xf32>, tensor<1x64x64xf32>) {
  %s = bwc.binary add %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %p = bwc.transpose %t perm = [0, 2, 1] : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %r = bwc.unary abs %p : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %s, %r : tensor<1024xf32>, tensor<1x64x64xf32>
}
