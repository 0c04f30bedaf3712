module {
  func.func @main(%arg0: tensor<2x2xf32> {bwc.name = "data"}) -> (tensor<1x2xi64> {bwc.name = "result"}) {
    %0 = bwc.arg_reduce argmax %arg0 axis = 0 keepdims = true select_last_index = false : (tensor<2x2xf32>) -> tensor<1x2xi64>
    return %0 : tensor<1x2xi64>
  }
}

