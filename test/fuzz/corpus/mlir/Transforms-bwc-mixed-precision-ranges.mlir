func.func @main(%x: tensor<4x8xf32>, %tiny: tensor<4x8xf32> {bwc.range = {max = 1.0e-5 : f64, median = 1.0e-6 : f64}}) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = bwc.constant dense<0.5> : tensor<8x16xf32>
  %big = bwc.matmul %x, %w {bwc.range = [{max = 1.0e5 : f64, median = 3.0e4 : f64}]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %small = bwc.matmul %tiny, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %fine = bwc.matmul %x, %w {bwc.range = [{max = 8.0 : f64, median = 0.5 : f64}]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %none = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %marked = bwc.matmul %x, %w {bwc.keep_f32 = "validation: a test"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = bwc.unary neg %big : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %b = bwc.unary neg %small : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = bwc.unary neg %fine : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %d = bwc.unary neg %none : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = bwc.unary neg %marked : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %a, %b, %c, %d, %e : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
