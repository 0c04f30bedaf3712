// The program of sim-counters.sh: counters one can work out by hand.
// add: 1024 f32 + 1024 f32 under the loop emitter (vector 4): 8 warps,
// each one 16-byte load request per input and one store request, 16
// sectors each. transpose: 64x64 f32 through transpose_tiled's padded
// [32][33] shared tiles (no bank conflict).
func.func @main(%x: tensor<1024xf32> {bwc.name = "x"}, %y: tensor<1024xf32> {bwc.name = "y"},
                %t: tensor<1x64x64xf32> {bwc.name = "t"}) -> (tensor<1024xf32>, tensor<1x64x64xf32>) {
  %s = bwc.binary add %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %p = bwc.transpose %t perm = [0, 2, 1] : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %r = bwc.unary abs %p : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %s, %r : tensor<1024xf32>, tensor<1x64x64xf32>
}
