// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-guard-branches | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-guard-branches --bwc-plan-buffers=schedule=true --bwc-verify-plan | FileCheck %s --check-prefix=PLAN

// Tests that the launches only one branch of a runtime If needs are
// guarded by the condition's launch, each with its branch, and that the
// condition's launch, the join and the launches before the If are not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.guarded_launches = 3 : i64
// CHECK: call @main_k0_reduce(%arg0) : (
// CHECK: call @main_k1_binary_gt({{.*}}) {bwc.branch_conditions = [{id = 0 : i64, result = 0 : i64}]}
// CHECK: call @main_k2_unary_log(%arg0) {bwc.guard = [{branch = "then", cond = 0 : i64}]}
// CHECK: call @main_k3_unary_exp({{.*}}) {bwc.guard = [{branch = "then", cond = 0 : i64}]}
// CHECK: call @main_k4_unary_abs(%arg0) {bwc.guard = [{branch = "else", cond = 0 : i64}]}
// CHECK: call @main_k5_select({{.*}}) : (
// The two branches' results, both live at the join, share bytes: no run
// writes both (3 x 256 bytes live at the join without the guards).
// PLAN-LABEL: func.func @main
// PLAN-SAME: bwc.arena_bytes = 512 : i64
// PLAN-SAME: bwc.lower_bound_bytes = 512 : i64
// PLAN-SAME: bwc.schedule = "program-order"
// PLAN: call @main_k3_unary_exp({{.*}}) {bwc.guard = [{branch = "then", cond = 0 : i64}], bwc.inplace = array<i64: 0>, bwc.offsets = array<i64: 0>}
// PLAN: call @main_k4_unary_abs({{.*}}) {bwc.guard = [{branch = "else", cond = 0 : i64}], bwc.offsets = array<i64: 0>}
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %s = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %zero = bwc.constant dense<0.0> : tensor<f32>
  %c = bwc.binary gt %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %t = bwc.unary log %x : (tensor<64xf32>) -> tensor<64xf32>
  %t2 = bwc.unary exp %t : (tensor<64xf32>) -> tensor<64xf32>
  %e = bwc.unary abs %x : (tensor<64xf32>) -> tensor<64xf32>
  %r = bwc.select %c, %t2, %e {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Tests that a condition that is a program argument is marked on the
// argument.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<64xf32>, %arg1: tensor<i1> {bwc.branch_condition = 0 : i64})
// CHECK: call @main_k0_unary_neg(%arg0) {bwc.guard = [{branch = "else", cond = 0 : i64}]}
// CHECK: call @main_k1_unary_log(%arg0) {bwc.guard = [{branch = "then", cond = 0 : i64}]}
// CHECK: call @main_k2_select(%arg1,
func.func @main(%x: tensor<64xf32>, %c: tensor<i1>) -> tensor<64xf32> {
  %e = bwc.unary neg %x : (tensor<64xf32>) -> tensor<64xf32>
  %t = bwc.unary log %x : (tensor<64xf32>) -> tensor<64xf32>
  %r = bwc.select %c, %t, %e {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Tests the order: the then launch, first in program order, moves below
// the condition.
// CHECK-LABEL: func.func @main
// CHECK: %[[S:.*]] = call @main_k1_reduce
// CHECK: %[[C:.*]] = call @main_k2_binary_gt(%[[S]]) {bwc.branch_conditions
// CHECK: %[[T:.*]] = call @main_k0_unary_log(%arg0) {bwc.guard = [{branch = "then", cond = 0 : i64}]}
// CHECK: call @main_k3_select(%[[C]], %[[T]], %arg0)
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %t = bwc.unary log %x : (tensor<64xf32>) -> tensor<64xf32>
  %s = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %zero = bwc.constant dense<0.0> : tensor<f32>
  %c = bwc.binary gt %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = bwc.select %c, %t, %x {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Tests what stays unguarded: a value both branches use (its users are
// guarded), a branch value that is also a program output, a select without
// the If mark, and a branch value the join divides by as integers
// (undefined bits could trap).
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.guarded_launches = 2
// CHECK: call @main_k0_unary_exp(%arg0) : (
// CHECK: call @main_k1_unary_log({{.*}}) {bwc.guard = [{branch = "then", cond = 0 : i64}]}
// CHECK: call @main_k2_unary_neg({{.*}}) {bwc.guard = [{branch = "else", cond = 0 : i64}]}
// CHECK: call @main_k4_unary_abs(%arg0) : (
// CHECK: call @main_k6_unary_sin(%arg0) : (
// CHECK: call @main_k8_binary_add(%arg2) : (
// CHECK: return
func.func @main(%x: tensor<64xf32>, %c: tensor<i1>, %i: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>) {
  %both = bwc.unary exp %x : (tensor<64xf32>) -> tensor<64xf32>
  %t = bwc.unary log %both : (tensor<64xf32>) -> tensor<64xf32>
  %e = bwc.unary neg %both : (tensor<64xf32>) -> tensor<64xf32>
  %r = bwc.select %c, %t, %e {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %o = bwc.unary abs %x : (tensor<64xf32>) -> tensor<64xf32>
  %r2 = bwc.select %c, %o, %x {bwc.if_both_branches} : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %u = bwc.unary sin %x : (tensor<64xf32>) -> tensor<64xf32>
  %r3 = bwc.select %c, %u, %x : (tensor<i1>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %d = bwc.binary add %i, %i : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %q = bwc.fusion loop (%i, %d, %c) : (tensor<64xi32>, tensor<64xi32>, tensor<i1>) -> tensor<64xi32> {
  ^bb0(%a: tensor<64xi32>, %b: tensor<64xi32>, %cc: tensor<i1>):
    %div = bwc.binary div %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    %sel = bwc.select %cc, %div, %a {bwc.if_both_branches} : (tensor<i1>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    bwc.yield %sel : tensor<64xi32>
  }
  return %r, %o, %r3, %q : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi32>
}
