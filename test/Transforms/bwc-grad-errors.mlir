// RUN: bwc-opt %s --split-input-file --verify-diagnostics --bwc-grad="optimizer=sgd lr=0.5"

// A parameter without an initial value (a graph input) cannot be state.
// expected-error @+1 {{bwc-grad: parameter 'w' is also a graph input; an optimizer step updates initializers in place}}
func.func @main(%x: tensor<3xf32> {bwc.name = "x"},
                %w: tensor<3xf32> {bwc.name = "w", bwc.trainable})
    -> (tensor<3xf32> {bwc.name = "y"}) {
  %0 = bwc.binary mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
