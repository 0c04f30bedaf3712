func.func @main(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = bwc.unary exp %x : (tensor<8xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}
