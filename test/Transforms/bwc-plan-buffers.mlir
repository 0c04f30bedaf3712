// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-plan-buffers=remarks=true --bwc-verify-plan --verify-diagnostics | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --bwc-plan-buffers=schedule=true --bwc-verify-plan | FileCheck %s --check-prefix=SCHED

// Tests that an elementwise kernel writes over an operand that dies there,
// so the chain takes one 256-byte slot, and that outputs stay outside.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 256 : i64, bwc.lower_bound_bytes = 256 : i64, bwc.no_reuse_bytes = 512 : i64, bwc.planner = "greedy-by-size"
// CHECK: call @main_k0_unary_exp(%{{.*}}) {bwc.offsets = array<i64: 0>}
// CHECK: call @main_k1_unary_neg(%{{.*}}) {bwc.inplace = array<i64: 0>, bwc.offsets = array<i64: 0>}
// CHECK: call @main_k2_reduce(%{{.*}}) {bwc.offsets = array<i64: -1>}
func.func @main(%x: tensor<64xf32>) -> tensor<f32> {
  %0 = bwc.unary exp %x : (tensor<64xf32>) -> tensor<64xf32>
  %1 = bwc.unary neg %0 : (tensor<64xf32>) -> tensor<64xf32>
  %2 = bwc.reduce sum %1 axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Tests that in-place reuse is refused for an operand read by a later
// launch and for a program output; live buffers get distinct offsets.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 512 : i64, bwc.lower_bound_bytes = 512 : i64, bwc.no_reuse_bytes = 512 : i64
// CHECK: call @main_k0_unary_exp(%{{.*}}) {bwc.offsets = array<i64: 0>}
// CHECK: call @main_k1_unary_neg(%{{.*}}) {bwc.offsets = array<i64: 256>}
// CHECK: call @main_k2_binary_add(%{{.*}}) {bwc.offsets = array<i64: -1>}
// CHECK: call @main_k3_unary_abs(%{{.*}}) {bwc.offsets = array<i64: -1>}
func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = bwc.unary exp %x : (tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{result 0 does not reuse operand 0 in place: operand 0 is read by launch 2}}
  %1 = bwc.unary neg %0 : (tensor<64xf32>) -> tensor<64xf32>
  %2 = bwc.binary add %1, %0 : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %3 = bwc.unary abs %2 : (tensor<64xf32>) -> tensor<64xf32>
  return %2, %3 : tensor<64xf32>, tensor<64xf32>
}

// -----

// Tests that in-place reuse is refused across an element type change and
// in a kernel that is not elementwise.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 512 : i64
// CHECK: call @main_k0_unary_exp
// CHECK-SAME: {bwc.offsets = array<i64: 0>}
// CHECK: call @main_k1_cast
// CHECK-SAME: {bwc.offsets = array<i64: 256>}
// CHECK: call @main_k2_cast
// CHECK-SAME: {bwc.offsets = array<i64: 0>}
// CHECK: call @main_k3_fusion_reduction
// CHECK-SAME: {bwc.offsets = array<i64: 256, -1>}
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = bwc.unary exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{result 0 does not reuse operand 0 in place: operand 0 has type tensor<4x8xf32>, not the result's tensor<4x8xf16>}}
  %1 = bwc.cast %0 : tensor<4x8xf32> to tensor<4x8xf16>
  // expected-remark @+1 {{result 0 does not reuse operand 0 in place: operand 0 has type tensor<4x8xf16>, not the result's tensor<4x8xf32>}}
  %2 = bwc.cast %1 : tensor<4x8xf16> to tensor<4x8xf32>
  // expected-remark @+1 {{result 0 does not reuse operand 0 in place: the kernel runs 'bwc.reduce', which is not elementwise}}
  %r:2 = bwc.fusion reduction (%2) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %m = bwc.reduce max %a axes = [1] keepdims = true : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %d = bwc.binary sub %a, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    bwc.yield %d, %m : tensor<4x8xf32>, tensor<4x1xf32>
  }
  return %r#1 : tensor<4x1xf32>
}

// -----

// Tests a two-result loop kernel (difftest seed 12414): result 0 may not
// be written over operand 0, which feeds result 1, even though the block
// reads it first (the CPU emitters compute result 1 after storing result
// 0); it is written over operand 1, which feeds it alone, and result 1
// over operand 0.
// CHECK-LABEL: func.func @main
// CHECK: call @main_k2_fusion_loop(%{{.*}}) {bwc.inplace = array<i64: 1, 0>
func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<f32> {
  %a = bwc.unary exp %x : (tensor<64xf32>) -> tensor<64xf32>
  %b = bwc.unary exp %y : (tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{result 0 does not reuse operand 0 in place: operand 0 also feeds result 1}}
  %r:2 = bwc.fusion loop (%a, %b) : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%p: tensor<64xf32>, %q: tensor<64xf32>):
    %m = bwc.unary abs %p : (tensor<64xf32>) -> tensor<64xf32>
    %n = bwc.unary neg %q : (tensor<64xf32>) -> tensor<64xf32>
    bwc.yield %n, %m : tensor<64xf32>, tensor<64xf32>
  }
  %s = bwc.reduce sum %r#1 axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %t = bwc.unary exp %r#0 : (tensor<64xf32>) -> tensor<64xf32>
  %u = bwc.reduce sum %t axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %v = bwc.binary add %s, %u : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %v : tensor<f32>
}

// -----

// Tests that the memory-aware order reduces each big buffer to a scalar
// before computing the next big one, and is kept because the arena shrinks.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 8448 : i64
// SCHED: bwc.arena_bytes = 4608 : i64, {{.*}}bwc.memory_aware_arena_bytes = 4608 : i64, {{.*}}bwc.program_order_arena_bytes = 8448 : i64, bwc.schedule = "memory-aware"
// SCHED: call @main_k0_unary_exp
// SCHED-NEXT: call @main_k2_reduce
// SCHED-NEXT: call @main_k1_unary_exp
// SCHED-NEXT: call @main_k3_reduce
// SCHED-NEXT: call @main_k4_binary_add
func.func @main(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<f32> {
  %p = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %q = bwc.unary exp %y : (tensor<1024xf32>) -> tensor<1024xf32>
  %p2 = bwc.reduce sum %p axes = [0] keepdims = false : (tensor<1024xf32>) -> tensor<f32>
  %q2 = bwc.reduce sum %q axes = [0] keepdims = false : (tensor<1024xf32>) -> tensor<f32>
  %r = bwc.binary add %p2, %q2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Tests that a program without launches plans an empty arena.
// CHECK-LABEL: func.func @main
// CHECK-SAME: bwc.arena_bytes = 0 : i64, bwc.lower_bound_bytes = 0 : i64, bwc.no_reuse_bytes = 0 : i64
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Tests that a training step's elementwise update kernel writes the new
// state over the state's own buffer when it is the state's last reader
// (bwc.state_inplace: the operand each result overwrites), so the executor
// copies nothing after the run.
// CHECK-LABEL: func.func @main
// CHECK: call @main_k0_binary_mul
// CHECK: call @main_k2_binary_sub(%{{.*}}, %{{.*}}) {bwc.offsets = array<i64: -1>, bwc.state_inplace = array<i64: 0>}
func.func @main(%x: tensor<64xf32>, %w: tensor<64xf32> {bwc.name = "w", bwc.state}) -> (tensor<f32>, tensor<64xf32> {bwc.state_update = "w"}) {
  %0 = bwc.binary mul %x, %w : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = bwc.reduce sum %0 axes = [0] keepdims = false : (tensor<64xf32>) -> tensor<f32>
  %2 = bwc.binary sub %w, %x : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %1, %2 : tensor<f32>, tensor<64xf32>
}

// -----

// Tests that an update computed before a later launch reads the old state,
// or by a kernel that is not elementwise (without `epilogues`, the CPU
// linalg path's setting), is left to the copy after the run.
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.state_inplace
// CHECK: return
func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {bwc.name = "w", bwc.state}, %v: tensor<4x4xf32> {bwc.name = "v", bwc.state}) -> (tensor<f32>, tensor<4x4xf32> {bwc.state_update = "w"}, tensor<4x4xf32> {bwc.state_update = "v"}) {
  // expected-remark @+1 {{result 0 (the update of state "w") is copied after the run, not written in place: launch 1 reads the state after it}}
  %u = bwc.binary sub %w, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = bwc.binary mul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = bwc.reduce sum %0 axes = [0, 1] keepdims = false : (tensor<4x4xf32>) -> tensor<f32>
  // expected-remark @+1 {{result 0 (the update of state "v") is copied after the run, not written in place: the kernel runs 'bwc.matmul', which is not elementwise}}
  %m = bwc.matmul %v, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1, %u, %m : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}

