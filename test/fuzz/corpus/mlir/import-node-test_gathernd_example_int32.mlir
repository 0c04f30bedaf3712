module {
  func.func @main(%arg0: tensor<2x2xi32> {bwc.name = "data"}, %arg1: tensor<2x2xi64> {bwc.name = "indices"}) -> (tensor<2xi32> {bwc.name = "output"}) {
    %0 = bwc.reshape %arg0 : (tensor<2x2xi32>) -> tensor<4xi32>
    %1 = bwc.constant dense<2> : tensor<1x2xi64>
    %2 = bwc.binary add %arg1, %1 : (tensor<2x2xi64>, tensor<1x2xi64>) -> tensor<2x2xi64>
    %3 = bwc.constant dense<0> : tensor<i64>
    %4 = bwc.binary lt %arg1, %3 : (tensor<2x2xi64>, tensor<i64>) -> tensor<2x2xi1>
    %5 = bwc.select %4, %2, %arg1 : (tensor<2x2xi1>, tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    %6 = bwc.constant dense<[[2, 1]]> : tensor<1x2xi64>
    %7 = bwc.binary mul %5, %6 : (tensor<2x2xi64>, tensor<1x2xi64>) -> tensor<2x2xi64>
    %8 = bwc.reduce sum %7 axes = [1] keepdims = false : (tensor<2x2xi64>) -> tensor<2xi64>
    %9 = bwc.gather %0[%8] axis = 0 : (tensor<4xi32>, tensor<2xi64>) -> tensor<2xi32>
    return %9 : tensor<2xi32>
  }
}

