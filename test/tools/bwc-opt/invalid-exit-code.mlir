// RUN: not bwc-opt %s 2>&1 | FileCheck %s
// RUN: echo "garbage" | not bwc-opt 2>&1 | FileCheck %s --check-prefix=PARSE

// Tests that invalid IR is a diagnostic and exit code 1, never a crash.
// CHECK: error: 'bwc.unary' op expects result type 'tensor<4xf32>' but got 'tensor<5xf32>'
// PARSE: error: custom op 'garbage' is unknown
func.func @f(%x: tensor<4xf32>) {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<5xf32>
  return
}
