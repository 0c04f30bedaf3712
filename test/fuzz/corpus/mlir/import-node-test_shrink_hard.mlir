module {
  func.func @main(%arg0: tensor<5xf32> {bwc.name = "x"}) -> (tensor<5xf32> {bwc.name = "y"}) {
    %0 = bwc.constant dense<-1.500000e+00> : tensor<f32>
    %1 = bwc.binary lt %arg0, %0 : (tensor<5xf32>, tensor<f32>) -> tensor<5xi1>
    %2 = bwc.constant dense<1.500000e+00> : tensor<f32>
    %3 = bwc.binary gt %arg0, %2 : (tensor<5xf32>, tensor<f32>) -> tensor<5xi1>
    %4 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %5 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %6 = bwc.binary sub %arg0, %5 : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
    %7 = bwc.select %3, %6, %4 : (tensor<5xi1>, tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
    %8 = bwc.constant dense<0.000000e+00> : tensor<f32>
    %9 = bwc.binary add %arg0, %8 : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
    %10 = bwc.select %1, %9, %7 : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    return %10 : tensor<5xf32>
  }
}

