// RUN: bwc-opt %s --split-input-file --bwc-verify-plan --verify-diagnostics | FileCheck %s

// Tests that a sound plan with an in-place hand-over passes unchanged.
// CHECK-LABEL: func.func @main
// CHECK: call @main_k1_unary_neg(%{{.*}}) {bwc.inplace = array<i64: 0>, bwc.offsets = array<i64: 0>}
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> attributes {bwc.arena_bytes = 256 : i64} {
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  %1 = call @main_k1_unary_neg(%0) {bwc.inplace = array<i64: 0>, bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = call @main_k2_unary_abs(%1) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  return %2 : tensor<64xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k2_unary_abs(tensor<64xf32>) -> tensor<64xf32>

// -----

// Tests that two buffers live at the same launch may not share bytes
// without an in-place declaration.
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> attributes {bwc.arena_bytes = 512 : i64} {
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  // expected-error @+1 {{buffers of 'main_k0_unary_exp' result 0 and 'main_k1_unary_neg' result 0 overlap at [0, 256) while both live at launch 1}}
  %1 = call @main_k1_unary_neg(%0) {bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = call @main_k2_unary_abs(%1) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  return %2 : tensor<64xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k2_unary_abs(tensor<64xf32>) -> tensor<64xf32>

// -----

// Tests that an in-place declaration does not cover an input read again
// after the hand-over.
func.func @main(%x: tensor<64xf32>) -> tensor<128xf32> attributes {bwc.arena_bytes = 768 : i64} {
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  // expected-error @+1 {{buffers of 'main_k0_unary_exp' result 0 and 'main_k1_unary_neg' result 0 overlap at [0, 256) while both live at launch 1}}
  %1 = call @main_k1_unary_neg(%0) {bwc.inplace = array<i64: 0>, bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = call @main_k2_binary_add(%1, %0) {bwc.offsets = array<i64: 256>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
  %3 = call @main_k3_unary_abs(%2) {bwc.offsets = array<i64: -1>} : (tensor<128xf32>) -> tensor<128xf32>
  return %3 : tensor<128xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k2_binary_add(tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
func.func private @main_k3_unary_abs(tensor<128xf32>) -> tensor<128xf32>

// -----

// Tests that every buffer lies inside the arena.
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> attributes {bwc.arena_bytes = 256 : i64} {
  // expected-error @+1 {{buffer of 'main_k0_unary_exp' result 0 at [256, 512) lies outside the arena [0, 256)}}
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 256>} : (tensor<64xf32>) -> tensor<64xf32>
  %1 = call @main_k1_unary_neg(%0) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>

// -----

// Tests that offsets are aligned, outputs stay outside the arena and every
// intermediate has an offset.
func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) attributes {bwc.arena_bytes = 1024 : i64} {
  // expected-error @+1 {{expects an arena offset for result 0 of 'main_k0_unary_exp', an intermediate, but got -1}}
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  // expected-error @+1 {{expects result 0 of 'main_k1_unary_neg', a program output, outside the arena but got offset 0}}
  %1 = call @main_k1_unary_neg(%0) {bwc.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = call @main_k2_unary_abs(%0) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  return %1, %2 : tensor<64xf32>, tensor<64xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k2_unary_abs(tensor<64xf32>) -> tensor<64xf32>

// -----

// Tests that an offset off the 256-byte grid is an error.
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> attributes {bwc.arena_bytes = 1024 : i64} {
  // expected-error @+1 {{buffer of 'main_k0_unary_exp' result 0 at offset 64 is not 256-byte aligned}}
  %0 = call @main_k0_unary_exp(%x) {bwc.offsets = array<i64: 64>} : (tensor<64xf32>) -> tensor<64xf32>
  %1 = call @main_k1_unary_neg(%0) {bwc.offsets = array<i64: -1>} : (tensor<64xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
func.func private @main_k0_unary_exp(tensor<64xf32>) -> tensor<64xf32>
func.func private @main_k1_unary_neg(tensor<64xf32>) -> tensor<64xf32>

// -----

// Tests the diagnostic for a program that was never planned.
// expected-error @+1 {{expects a non-negative 'bwc.arena_bytes' on 'main' (run bwc-plan-buffers first)}}
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  return %x : tensor<64xf32>
}
