// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels --verify-diagnostics

// expected-error @+1 {{expects a kernel on statically shaped tensors but got 'i32'}}
func.func private @not_tensor(%a: i32) attributes {bwc.kernel} {
  return
}

// -----

func.func private @int_avgpool(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> attributes {bwc.kernel} {
  // expected-error @+1 {{expects a float average pool but got 'i32'}}
  %0 = bwc.pool avg %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}
