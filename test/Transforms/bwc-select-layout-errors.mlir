// RUN: not bwc-opt %s "--bwc-select-layout=mode=nhcw" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not bwc-opt %s "--bwc-select-layout=sm-count=0" 2>&1 | FileCheck %s --check-prefix=SM

// Tests that an unknown mode is an error naming it, and that the SM count
// must be positive.
// MODE: error: expects mode auto, nchw or nhwc but got 'nhcw'
// SM: error: expects sm-count >= 1 but got 0
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
