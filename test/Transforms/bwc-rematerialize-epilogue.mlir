// RUN: bwc-opt %s --bwc-fuse --bwc-outline-kernels "--bwc-rematerialize=memory-budget=1KiB epilogues=true" "--bwc-plan-buffers=epilogues=true" --bwc-verify-plan | FileCheck %s
// RUN: not bwc-opt %s --bwc-fuse --bwc-outline-kernels "--bwc-rematerialize=memory-budget=1KiB" 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE

// Tests (2026-12-07) that bwc-rematerialize's `epilogues` decides in-place
// writes as bwc-plan-buffers' does: the contraction kernel's result
// (m + t) may go over t, which only its epilogue reads, so 1 KiB holds
// the program (t, then the result in its place) and the plan agrees.
// Without the option, t and the result are both live at that launch:
// 2 KiB is the least it can see, and a 1 KiB budget is refused although
// the planner with `epilogues` meets it (the transformer block's step
// failed so when only the planner took the rule).
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 1024 : i64
// CHECK-SAME: bwc.remat_min_arena = 1024 : i64
// CHECK-SAME: bwc.remat_recomputed_ops = 0 : i64
// CHECK: %[[T:.*]] = call @main_k0_unary_exp(%{{.*}}) {bwc.offsets = array<i64: 0>}
// CHECK: call @main_k1_fusion_contraction(%{{.*}}, %{{.*}}, %[[T]]) {bwc.inplace = array<i64: 2>, bwc.offsets = array<i64: 0>}
// ELEMENTWISE: error: memory budget 1.0 KiB cannot be met: minimum reachable arena is 2.0 KiB (2048 B)
func.func @main(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>, %z: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %t = bwc.unary exp %z : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = bwc.matmul %x, %y : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = bwc.binary add %m, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = bwc.matmul %r, %y : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}
