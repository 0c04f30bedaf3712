// RUN: not bwc-opt %s "--bwc-pad-channels=sm-count=0" 2>&1 | FileCheck %s --check-prefix=SM
// RUN: bwc-opt %s --bwc-pad-channels --split-input-file -verify-diagnostics

// Tests that the SM count must be positive, and that a padding the access
// model chose whose filter data cannot be read (a resource without its
// blob) is an error at the convolution, not a silent skip or a crash.
// SM: error: expects sm-count >= 1 but got 0
func.func @main(%x: tensor<1x16000x1xf32>) -> tensor<1x97x257xf32> {
  %w = bwc.constant dense_resource<__elided__> : tensor<512x1x257xf32>
  // expected-error @+1 {{cannot read the constant filter or bias to pad}}
  %c = bwc.conv %x, %w strides = [160] dilations = [1] pads = [0, 0] groups = 1 {channels_last} : (tensor<1x16000x1xf32>, tensor<512x1x257xf32>) -> tensor<1x97x257xf32>
  return %c : tensor<1x97x257xf32>
}
