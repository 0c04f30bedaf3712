// RUN: bwc-opt %s --split-input-file --bwc-fuse --bwc-outline-kernels "--bwc-plan-buffers=remarks=true epilogues=true" --bwc-verify-plan --verify-diagnostics | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-fuse --bwc-outline-kernels --bwc-plan-buffers --bwc-verify-plan | FileCheck %s --check-prefix=LINALG

// Without `epilogues` (bwc-opt's default; bwc-compile sets it for every
// code generator since 2026-12-07) no update in a contraction kernel is
// written in place.
// LINALG-NOT: bwc.state_inplace

// Tests (2026-12-07) that an SGD update fused into its gradient's
// contraction (w - 0.1 * (x^T g): the matmul reads x and g, the state only
// in the epilogue, at the update's own index) writes the new weights over
// the old ones, as an elementwise update kernel does.
// CHECK-LABEL: func.func @main
// CHECK: call @main_k1_fusion_contraction(%{{.*}}, %{{.*}}, %{{.*}}, %[[W:.*]]) {bwc.offsets = array<i64: -1>, bwc.state_inplace = array<i64: 3>}
func.func @main(%x: tensor<8x4xf32>, %g: tensor<8x6xf32>, %w: tensor<4x6xf32> {bwc.name = "w", bwc.state}) -> (tensor<4x6xf32> {bwc.state_update = "w"}) {
  %t = bwc.transpose %x perm = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %d = bwc.matmul %t, %g : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %lr = bwc.constant dense<0.1> : tensor<4x6xf32>
  %s = bwc.binary mul %d, %lr : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %u = bwc.binary sub %w, %s : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %u : tensor<4x6xf32>
}

// -----

// Tests that a state the fused contraction itself reads (w - 0.1 * (w g):
// the matmul reads every row of w for each output) is left to the copy.
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.state_inplace
// CHECK: return
func.func @main(%g: tensor<6x6xf32>, %w: tensor<4x6xf32> {bwc.name = "w", bwc.state}) -> (tensor<4x6xf32> {bwc.state_update = "w"}) {
  // expected-remark @+1 {{result 0 (the update of state "w") is copied after the run, not written in place: operand 0 is read by 'bwc.matmul', which is not elementwise}}
  %d = bwc.matmul %w, %g : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %lr = bwc.constant dense<0.1> : tensor<4x6xf32>
  %s = bwc.binary mul %d, %lr : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %u = bwc.binary sub %w, %s : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %u : tensor<4x6xf32>
}
