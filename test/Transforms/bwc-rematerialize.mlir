// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-rematerialize="memory-budget=8KiB strategy=greedy" --bwc-plan-buffers --bwc-verify-plan --verify-diagnostics | FileCheck %s
// RUN: not bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-rematerialize="memory-budget=8192 strategy=checkpoints" --bwc-plan-buffers 2>/dev/null | FileCheck %s --check-prefix=CKPT
// RUN: not bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-rematerialize="memory-budget=8192 strategy=checkpoints" --bwc-plan-buffers 2>&1 >/dev/null | FileCheck %s --check-prefix=CKPT-ERR
// RUN: not bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-rematerialize="memory-budget=lots" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-rematerialize="memory-budget=1MiB strategy=magic" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not bwc-opt %s --split-input-file --bwc-rematerialize="memory-budget=1MiB" 2>&1 | FileCheck %s --check-prefix=UNOUTLINED

// BUDGET: error: expects memory-budget as BYTES with an optional B, KiB, MiB or GiB suffix but got 'lots'
// STRATEGY: error: expects strategy greedy, checkpoints or best but got 'magic'
// UNOUTLINED: error: expects only constants, kernel calls and a return in 'main' (run bwc-outline-kernels first)

// Tests that a skip connection (exp %x, read again by the last launch) is
// recomputed from the graph input just before its late use instead of
// living across the branch.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 8192 : i64
// CHECK-SAME: bwc.remat_arena_after = 8192 : i64, bwc.remat_arena_before = 12288 : i64, bwc.remat_budget_bytes = 8192 : i64, bwc.remat_extra_bytes = 8192 : i64, bwc.remat_extra_flops = 1024 : i64
// CHECK-SAME: bwc.remat_recomputed_ops = 1 : i64, bwc.remat_strategy = "greedy"
// CHECK: %[[SKIP:.*]] = call @main_k0_unary_exp(%arg0)
// CHECK-NOT: bwc.remat
// CHECK: call @main_k1_unary_neg(%[[SKIP]])
// CHECK: call @main_k4_unary_tanh
// CHECK: %[[AGAIN:.*]] = call @main_k0_unary_exp(%arg0) {{{.*}}bwc.remat = 0 : i64
// CHECK: call @main_k5_binary_add(%{{.*}}, %[[AGAIN]])
// CKPT-LABEL: func.func @main
// CKPT-SAME: bwc.remat_strategy = "checkpoints"
// CKPT: call @main_k0_unary_exp(%arg0) {{{.*}}bwc.remat = 0 : i64
// CKPT: call @main_k5_binary_add
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = bwc.unary neg %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  %2 = bwc.unary abs %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  %3 = bwc.binary mul %1, %2 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %4 = bwc.unary tanh %3 : (tensor<1024xf32>) -> tensor<1024xf32>
  %5 = bwc.binary add %4, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %5 : tensor<1024xf32>
}

// -----

// Tests that a value read late (%2 = abs(neg %0)) is recomputed by a chain
// of two kernels from a kept value (%0, read by every launch of the peak),
// since recomputing only abs would keep neg's 4 KiB result alive instead
// (12 KiB before: in-place reuse already folds the rest of the chain).
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 8192 : i64
// CHECK-SAME: bwc.remat_arena_before = 12288 : i64
// CHECK-SAME: bwc.remat_recomputed_ops = 2 : i64
// CHECK: %[[KEPT:.*]] = call @main_k0_unary_exp(%arg0)
// CHECK: call @main_k6_binary_add
// CHECK: %[[N:.*]] = call @main_k1_unary_neg(%[[KEPT]]) {{{.*}}bwc.remat = 1 : i64
// CHECK: %[[A:.*]] = call @main_k2_unary_abs(%[[N]]) {{{.*}}bwc.remat = 2 : i64
// CHECK: call @main_k7_binary_add(%{{.*}}, %[[A]])
// The checkpoint strategy keeps whole segments and cannot express this
// chain: it stops at 12 KiB.
// CKPT-ERR: error: memory budget 8.0 KiB cannot be met: minimum reachable arena is 12.0 KiB (12288 B)
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = bwc.unary neg %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  %2 = bwc.unary abs %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  %3 = bwc.unary tanh %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  %4 = bwc.binary mul %3, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %5 = bwc.binary mul %4, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %6 = bwc.binary add %5, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %7 = bwc.binary add %6, %2 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %7 : tensor<1024xf32>
}

// -----

// Tests that a program already within the budget is left alone (the
// figures are still recorded).
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.remat_arena_after = 4096 : i64, bwc.remat_arena_before = 4096 : i64, bwc.remat_budget_bytes = 8192 : i64
// CHECK-SAME: bwc.remat_recomputed_ops = 0 : i64
// CHECK-NOT: bwc.remat =
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = bwc.unary neg %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  return %1 : tensor<1024xf32>
}

// -----

// Tests that a budget below what any recomputation reaches is refused,
// naming the smallest arena: here nothing lives across another launch, so
// nothing can be saved.
// CKPT-ERR: error: memory budget 8.0 KiB cannot be met: minimum reachable arena is 16.0 KiB (16384 B)
// expected-error @+1 {{memory budget 8.0 KiB cannot be met: minimum reachable arena is 16.0 KiB (16384 B)}}
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = bwc.unary exp %x : (tensor<4096xf32>) -> tensor<4096xf32>
  %1 = bwc.unary neg %0 : (tensor<4096xf32>) -> tensor<4096xf32>
  return %1 : tensor<4096xf32>
}
