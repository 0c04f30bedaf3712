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

// -----

// expected-error @+1 {{expects a kernel with a body}}
func.func private @external(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel}

// -----

func.func private @unsupported(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  // expected-error @+1 {{expects a bwc op the elemental emitter supports but got 'tensor.empty'}}
  %0 = tensor.empty() : tensor<4xf32>
  %1 = bwc.binary add %a, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func private @gather_empty(%d: tensor<0x2xf32>, %i: tensor<3xi64>) -> tensor<3x2xf32> attributes {bwc.kernel} {
  // expected-error @+1 {{expects a non-empty gather axis but got size 0}}
  %0 = bwc.gather %d[%i] axis = 0 : (tensor<0x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func private @resize_taps(%x: tensor<2x2x2x2x2xf32>) -> tensor<4x4x4x4x4xf32> attributes {bwc.kernel} {
  // expected-error @+1 {{expects at most 256 input elements per output element but got 1024}}
  %0 = bwc.resize cubic %x scales = [2.0, 2.0, 2.0, 2.0, 2.0] coord = half_pixel nearest_mode = floor : (tensor<2x2x2x2x2xf32>) -> tensor<4x4x4x4x4xf32>
  return %0 : tensor<4x4x4x4x4xf32>
}

// -----

func.func private @resource(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  // expected-error @+1 {{expects a dense or splat constant in a kernel but got}}
  %c = bwc.constant dense_resource<blob> : tensor<4xf32>
  %0 = bwc.binary add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
