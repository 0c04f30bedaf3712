module {
  func.func @main(%arg0: tensor<4x5xi64> {bwc.name = "x"}) -> (tensor<4x5xi64> {bwc.name = "y"}) {
    %0 = bwc.constant dense<[[true, true, true, true, true], [false, true, true, true, true], [false, false, true, true, true], [false, false, false, true, true]]> : tensor<4x5xi1>
    %1 = bwc.constant dense<0> : tensor<i64>
    %2 = bwc.select %0, %arg0, %1 : (tensor<4x5xi1>, tensor<4x5xi64>, tensor<i64>) -> tensor<4x5xi64>
    return %2 : tensor<4x5xi64>
  }
}

