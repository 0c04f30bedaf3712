// RUN: bwc-opt %s --split-input-file --bwc-mixed-precision="precision=fp8" --verify-diagnostics
// RUN: not bwc-opt %s --bwc-outline-kernels --bwc-plan-buffers="planner=magic" 2>&1 | FileCheck %s --check-prefix=PLANNER
// RUN: not bwc-opt %s --bwc-plan-buffers 2>&1 | FileCheck %s --check-prefix=UNOUTLINED
// RUN: not bwc-opt %s --bwc-kernels-to-buffers 2>&1 | FileCheck %s --check-prefix=NOBODY

// Tests the option and precondition errors of the program passes:
// an unknown precision, an unknown planner, planning before outlining, and
// a kernel declaration without a body.
// UNOUTLINED: error: expects only constants, kernel calls and a return in 'main' (run bwc-outline-kernels first)
// NOBODY: error: expects a kernel with a body
// PLANNER: error: unknown planner 'magic' (expects smallest, greedy-by-size or best-fit)

// expected-error @+1 {{unknown precision 'fp8' (expected fp16 or bf16)}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel}
