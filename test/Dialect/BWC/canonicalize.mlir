// RUN: bwc-opt %s --split-input-file --canonicalize | FileCheck %s

// Tests that the shape arithmetic exporters write (Shape -> Gather ->
// Unsqueeze -> Concat) folds to one constant.
// CHECK-LABEL: func.func @shape_chain
// CHECK-NEXT: %[[C:.*]] = bwc.constant dense<[8, -1]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_chain() -> tensor<2xi64> {
  %shape = bwc.constant dense<[8, 3, 4, 4]> : tensor<4xi64>
  %idx = bwc.constant dense<0> : tensor<i64>
  %n = bwc.gather %shape[%idx] axis = 0 : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %n1 = bwc.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %m1 = bwc.constant dense<-1> : tensor<1xi64>
  %r = bwc.concat %n1, %m1 axis = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// Tests constant folding of float unary and broadcast binary functions.
// CHECK-LABEL: func.func @float_math
// CHECK-NEXT: bwc.constant dense<{{\[}}[2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
func.func @float_math() -> tensor<2x2xf32> {
  %a = bwc.constant dense<[[1.0, 2.0], [4.0, 5.0]]> : tensor<2x2xf32>
  %b = bwc.constant dense<1.0> : tensor<f32>
  %e = bwc.unary relu %a : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = bwc.binary add %e, %b : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Tests that integer division by zero is left for run time, not folded.
// CHECK-LABEL: func.func @div_by_zero
// CHECK: bwc.binary div
func.func @div_by_zero() -> tensor<1xi64> {
  %a = bwc.constant dense<1> : tensor<1xi64>
  %z = bwc.constant dense<0> : tensor<1xi64>
  %r = bwc.binary div %a, %z : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %r : tensor<1xi64>
}

// -----

// Tests comparisons and select on constants.
// CHECK-LABEL: func.func @compare_select
// CHECK-NEXT: bwc.constant dense<[7, 2, 7]> : tensor<3xi64>
func.func @compare_select() -> tensor<3xi64> {
  %a = bwc.constant dense<[1, 2, 3]> : tensor<3xi64>
  %two = bwc.constant dense<2> : tensor<i64>
  %seven = bwc.constant dense<7> : tensor<i64>
  %c = bwc.binary eq %a, %two : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %n = bwc.unary not %c : (tensor<3xi1>) -> tensor<3xi1>
  %r = bwc.select %n, %seven, %a : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// Tests that a splat condition picks a branch without constants elsewhere.
// CHECK-LABEL: func.func @select_splat
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @select_splat(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = bwc.constant dense<false> : tensor<4xi1>
  %r = bwc.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests casts: identity cast vanishes, float -> int truncates toward zero.
// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[C:.*]] = bwc.constant dense<[-1, 2]> : tensor<2xi64>
// CHECK: return %[[X]], %[[C]]
func.func @casts(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi64>) {
  %0 = bwc.cast %x : tensor<4xf32> to tensor<4xf32>
  %f = bwc.constant dense<[-1.7, 2.9]> : tensor<2xf32>
  %1 = bwc.cast %f : tensor<2xf32> to tensor<2xi64>
  return %0, %1 : tensor<4xf32>, tensor<2xi64>
}

// -----

// Tests that a widening cast of a constant folds only when small: a
// 128-element int8 weight cast to f32 stays int8 and a cast (the kernel that
// consumes it widens it, reading a quarter of the bytes); a 4-element one
// folds.
// CHECK-LABEL: func.func @widening_casts
// CHECK-DAG: %[[Q:.*]] = bwc.constant dense<3> : tensor<128xi8>
// CHECK-DAG: %[[S:.*]] = bwc.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %[[W:.*]] = bwc.cast %[[Q]] : tensor<128xi8> to tensor<128xf32>
// CHECK: return %[[W]], %[[S]]
func.func @widening_casts() -> (tensor<128xf32>, tensor<4xf32>) {
  %q = bwc.constant dense<3> : tensor<128xi8>
  %w = bwc.cast %q : tensor<128xi8> to tensor<128xf32>
  %s = bwc.constant dense<[1, -2, 3, 4]> : tensor<4xi8>
  %f = bwc.cast %s : tensor<4xi8> to tensor<4xf32>
  return %w, %f : tensor<128xf32>, tensor<4xf32>
}

// -----

// Tests that identity data movement vanishes and reshape chains collapse.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = bwc.reshape %[[X]] : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[R]]
func.func @identities(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32xf32>) {
  %0 = bwc.transpose %x perm = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = bwc.slice %x starts = [0, 0] steps = [1, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = bwc.broadcast %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = bwc.reshape %x : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %4 = bwc.reshape %3 : (tensor<2x16xf32>) -> tensor<32xf32>
  return %0, %1, %2, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32xf32>
}

// -----

// Tests folding of data movement on constants.
// CHECK-LABEL: func.func @move_constants
// CHECK-DAG: bwc.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-DAG: bwc.constant dense<[6, 4]> : tensor<2xi64>
// CHECK-DAG: bwc.constant dense<{{\[}}[1, 2], [1, 2]]> : tensor<2x2xi64>
func.func @move_constants() -> (tensor<3x2xi64>, tensor<2xi64>, tensor<2x2xi64>) {
  %a = bwc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %t = bwc.transpose %a perm = [1, 0] : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %flat = bwc.reshape %a : (tensor<2x3xi64>) -> tensor<6xi64>
  %s = bwc.slice %flat starts = [5] steps = [-2] : (tensor<6xi64>) -> tensor<2xi64>
  %v = bwc.constant dense<[1, 2]> : tensor<2xi64>
  %b = bwc.broadcast %v : (tensor<2xi64>) -> tensor<2x2xi64>
  return %t, %s, %b : tensor<3x2xi64>, tensor<2xi64>, tensor<2x2xi64>
}

// -----

// Tests (2026-12-04) that a transpose moving only unit dims (oww_melspec's
// one-channel signal going channels-last) is a reshape, and that one
// reordering two non-unit dims stays a transpose.
// CHECK-LABEL: func.func @unit_dims_transpose
// CHECK-NEXT: %[[R:.*]] = bwc.reshape %arg0 : (tensor<1x1x16000xf32>) -> tensor<1x16000x1xf32>
// CHECK-NEXT: %[[T:.*]] = bwc.transpose %arg1 perm = [0, 2, 1, 3] : (tensor<1x2x3x1xf32>) -> tensor<1x3x2x1xf32>
// CHECK-NEXT: return %[[R]], %[[T]]
func.func @unit_dims_transpose(%x: tensor<1x1x16000xf32>, %y: tensor<1x2x3x1xf32>) -> (tensor<1x16000x1xf32>, tensor<1x3x2x1xf32>) {
  %0 = bwc.transpose %x perm = [0, 2, 1] : (tensor<1x1x16000xf32>) -> tensor<1x16000x1xf32>
  %1 = bwc.transpose %y perm = [0, 2, 1, 3] : (tensor<1x2x3x1xf32>) -> tensor<1x3x2x1xf32>
  return %0, %1 : tensor<1x16000x1xf32>, tensor<1x3x2x1xf32>
}

// -----

// Tests the exact float identities x - 0, x * 1, x / 1 (a DequantizeLinear
// with a zero point of zeros), and that x - (-0) and x * 2 stay.
// CHECK-LABEL: func.func @float_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[N:.*]] = bwc.constant dense<-0.000000e+00> : tensor<8xf32>
// CHECK-DAG: %[[T:.*]] = bwc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[S:.*]] = bwc.binary sub %[[X]], %[[N]]
// CHECK-DAG: %[[M:.*]] = bwc.binary mul %[[X]], %[[T]]
// CHECK: return %[[X]], %[[X]], %[[X]], %[[S]], %[[M]]
func.func @float_identities(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = bwc.constant dense<0.0> : tensor<8xf32>
  %o = bwc.constant dense<1.0> : tensor<f32>
  %n = bwc.constant dense<-0.0> : tensor<8xf32>
  %t = bwc.constant dense<2.0> : tensor<f32>
  %0 = bwc.binary sub %x, %z : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = bwc.binary mul %x, %o : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = bwc.binary div %x, %o : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = bwc.binary sub %x, %n : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = bwc.binary mul %x, %t : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
