module {
  func.func @main(%arg0: tensor<4x3xui8> {bwc.name = "A"}, %arg1: tensor<3x2xui8> {bwc.name = "B"}, %arg2: tensor<1xui8> {bwc.name = "a_zero_point"}, %arg3: tensor<1xui8> {bwc.name = "b_zero_point"}) -> (tensor<4x2xi32> {bwc.name = "Y"}) {
    %0 = bwc.cast %arg0 : tensor<4x3xui8> to tensor<4x3xi32>
    %1 = bwc.cast %arg2 : tensor<1xui8> to tensor<1xi32>
    %2 = bwc.reshape %1 : (tensor<1xi32>) -> tensor<i32>
    %3 = bwc.binary sub %0, %2 : (tensor<4x3xi32>, tensor<i32>) -> tensor<4x3xi32>
    %4 = bwc.cast %arg1 : tensor<3x2xui8> to tensor<3x2xi32>
    %5 = bwc.cast %arg3 : tensor<1xui8> to tensor<1xi32>
    %6 = bwc.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %7 = bwc.binary sub %4, %6 : (tensor<3x2xi32>, tensor<i32>) -> tensor<3x2xi32>
    %8 = bwc.matmul %3, %7 : (tensor<4x3xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
    return %8 : tensor<4x2xi32>
  }
}

