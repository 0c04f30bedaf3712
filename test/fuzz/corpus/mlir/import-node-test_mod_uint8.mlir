module {
  func.func @main(%arg0: tensor<3xui8> {bwc.name = "x"}, %arg1: tensor<3xui8> {bwc.name = "y"}) -> (tensor<3xui8> {bwc.name = "z"}) {
    %0 = bwc.binary mod %arg0, %arg1 : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    return %0 : tensor<3xui8>
  }
}

