// RUN: bwc-opt %s --split-input-file --verify-diagnostics --bwc-grad

// An op on a parameter-to-loss path whose rule does not cover its
// configuration is an error naming it.
func.func @main(%x: tensor<4xf32> {bwc.name = "x", bwc.trainable}, %y: tensor<4xf32> {bwc.trainable}) -> tensor<4xf32> {
  // expected-error @+1 {{'bwc.binary' op has no gradient rule for its divisor (fmod of a trainable value)}}
  %0 = bwc.binary fmod %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{bwc-grad: no trainable parameters}}
func.func @main(%x: tensor<4xf32> {bwc.name = "x"}) -> tensor<4xf32> {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{bwc-grad: the first output does not depend on any trainable parameter}}
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32> {bwc.trainable}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %w : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{bwc-grad: the loss applies to the first output, which is not a float tensor}}
func.func @main(%w: tensor<4xf32> {bwc.trainable}) -> tensor<i64> {
  %0 = bwc.arg_reduce argmax %w axis = 0 keepdims = false select_last_index = false : (tensor<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A multi-result op on the path (a fusion region: bwc-grad runs before
// bwc-fuse) is refused, not skipped.
func.func @main(%w: tensor<4xf32> {bwc.trainable}) -> tensor<4xf32> {
  // expected-error @+1 {{bwc-grad: no gradient rule for 'bwc.fusion'}}
  %0, %1 = bwc.fusion loop (%w) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = bwc.unary exp %a : (tensor<4xf32>) -> tensor<4xf32>
    bwc.yield %e, %e : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
