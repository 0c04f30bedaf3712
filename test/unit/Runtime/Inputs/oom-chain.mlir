// x + w -> exp -> neg, unfused (--fusion=none): an input, an output, a
// weight and two intermediates in the arena, for bwc-oom-check.
func.func @main(%x: tensor<32x32xf32> {bwc.name = "x"}) -> (tensor<32x32xf32> {bwc.name = "y"}) {
  %w = bwc.constant dense<0.25> : tensor<32xf32>
  %a = bwc.binary add %x, %w : (tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %b = bwc.unary exp %a : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = bwc.unary neg %b : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
