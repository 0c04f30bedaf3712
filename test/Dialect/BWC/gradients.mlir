// RUN: bwc-opt %s --split-input-file --bwc-grad --canonicalize --cse | FileCheck %s

// The reverse-mode rules (lib/Dialect/BWC/IR/BWCGradients.cpp) of the ops
// whose adjoint is not elementwise, each through bwc-grad with an mse loss.
// Numerical checks (every rule against finite differences) are in
// test/python/test_grad.py.

// Grouped strided convolution. Data: the transposed convolution of the
// adjoint by the same filter (no pads), cropped to the unpadded input
// ([1, 6) of the 6 padded rows, zeros appended where the taps fall short).
// Filter: a convolution of the padded input cut to the taps' reach, batch
// and channels exchanged per group ([Cg, G*N, ...]), the adjoint as its
// filter ([F, N, O...]), stride and dilation exchanged.
// CHECK-LABEL: func.func @main
// CHECK: %[[G:.*]] = bwc.binary add %[[H:.*]], %[[H]] : (tensor<1x6x2x2xf32>
// CHECK: %[[DT:.*]] = bwc.conv %[[G]], %arg1 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {transposed} : (tensor<1x6x2x2xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x5x5xf32>
// CHECK: %[[DP:.*]] = bwc.pad constant %[[DT]] pads = [0, 0, 0, 0, 0, 0, 1, 1]
// CHECK: %[[DX:.*]] = bwc.slice %[[DP]] starts = [0, 0, 1, 1] steps = [1, 1, 1, 1] : (tensor<1x4x6x6xf32>) -> tensor<1x4x5x5xf32>
// CHECK: %[[XP:.*]] = bwc.pad constant %arg0 pads = [0, 0, 1, 1, 0, 0, 0, 0]
// CHECK: %[[XC:.*]] = bwc.slice %[[XP]] starts = [0, 0, 0, 0] steps = [1, 1, 1, 1] : (tensor<1x4x6x6xf32>) -> tensor<1x4x5x5xf32>
// CHECK: bwc.transpose %{{.*}} perm = [2, 1, 0, 3, 4] : (tensor<1x2x2x5x5xf32>) -> tensor<2x2x1x5x5xf32>
// (The adjoint's [1, 2, 0, 3, 4] transpose of 1x2x3x2x2 moves only its
// unit dim: canonicalized to a reshape, 2026-12-04.)
// CHECK: bwc.reshape %{{.*}} : (tensor<1x6x2x2xf32>) -> tensor<6x1x2x2xf32>
// CHECK: %[[DW:.*]] = bwc.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [2, 2] pads = [0, 0, 0, 0] groups = 2 : (tensor<2x2x5x5xf32>, tensor<6x1x2x2xf32>) -> tensor<2x6x3x3xf32>
// CHECK: %[[DWT:.*]] = bwc.transpose %[[DW]] perm = [1, 0, 2, 3] : (tensor<2x6x3x3xf32>) -> tensor<6x2x3x3xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DWT]]
func.func @main(%x: tensor<1x4x5x5xf32> {bwc.name = "x", bwc.trainable},
                %w: tensor<6x2x3x3xf32> {bwc.name = "w", bwc.trainable})
    -> (tensor<1x6x2x2xf32> {bwc.name = "y"}) {
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 2 : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x2x2xf32>
  return %0 : tensor<1x6x2x2xf32>
}

// -----

// A negative strided slice: reversed, zeros interleaved (reshape, pad,
// reshape, cut), then padded into place (x[2], x[4], x[6]).
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = bwc.slice %{{.*}} starts = [0, 2] steps = [1, -1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = bwc.reshape %[[R]] : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[P:.*]] = bwc.pad constant %[[S]] pads = [0, 0, 0, 0, 0, 1]
// CHECK: %[[M:.*]] = bwc.reshape %[[P]] : (tensor<2x3x2xf32>) -> tensor<2x6xf32>
// CHECK: %[[C:.*]] = bwc.slice %[[M]] starts = [0, 0] steps = [1, 1] : (tensor<2x6xf32>) -> tensor<2x5xf32>
// CHECK: %[[D:.*]] = bwc.pad constant %[[C]] pads = [0, 2, 0, 0] value = 0.000000e+00 : f32 : (tensor<2x5xf32>) -> tensor<2x7xf32>
// CHECK: return %{{.*}}, %[[D]]
func.func @main(%x: tensor<2x7xf32> {bwc.name = "x", bwc.trainable})
    -> (tensor<2x3xf32> {bwc.name = "y"}) {
  %0 = bwc.slice %x starts = [0, 6] steps = [1, -2] : (tensor<2x7xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Average pool: the adjoint divided by each window's divisor (taps inside
// the input: 2 then 3 per dim), spread by a grouped transposed convolution
// with a ones filter, cropped to the input.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[ONES:.*]] = bwc.constant dense<1.000000e+00> : tensor<2x1x3x3xf32>
// CHECK-DAG: %[[DIV:.*]] = bwc.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[Q:.*]] = bwc.binary div %{{.*}}, %[[DIV]]
// CHECK: %[[T:.*]] = bwc.conv %[[Q]], %[[ONES]] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {transposed} : (tensor<1x2x2x2xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK: %[[DX:.*]] = bwc.slice %[[T]] starts = [0, 0, 1, 1] steps = [1, 1, 1, 1] : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @main(%x: tensor<1x2x4x4xf32> {bwc.name = "x", bwc.trainable})
    -> (tensor<1x2x2x2xf32> {bwc.name = "y"}) {
  %0 = bwc.pool avg %x kernel = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Max pool: per tap, the strided slice equal to the maximum and not taken
// by an earlier tap (the forward's first pick) takes the adjoint; the
// taps stacked as channels spread back by a transposed convolution whose
// grouped filter holds a one at each tap.
// CHECK-LABEL: func.func @main
// CHECK: %[[Y:.*]] = bwc.pool max %arg0
// CHECK: %[[T0:.*]] = bwc.slice %arg0 starts = [0, 0, 0, 0] steps = [1, 1, 2, 2]
// CHECK: %[[H0:.*]] = bwc.binary eq %[[T0]], %[[Y]]
// CHECK: %[[T1:.*]] = bwc.slice %arg0 starts = [0, 0, 0, 1] steps = [1, 1, 2, 2]
// CHECK: %[[H1:.*]] = bwc.binary eq %[[T1]], %[[Y]]
// CHECK: %[[N0:.*]] = bwc.unary not %[[H0]]
// CHECK: %[[F1:.*]] = bwc.binary and %[[H1]], %[[N0]]
// CHECK: bwc.select %[[F1]]
// CHECK: %[[ST:.*]] = bwc.concat %{{.*}} axis = 2 : ({{.*}}) -> tensor<1x2x4x2x2xf32>
// CHECK: %[[SR:.*]] = bwc.reshape %[[ST]] : (tensor<1x2x4x2x2xf32>) -> tensor<1x8x2x2xf32>
// CHECK: bwc.conv %[[SR]], %{{.*}} strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 {transposed} : (tensor<1x8x2x2xf32>, tensor<8x1x2x2xf32>) -> tensor<1x2x4x4xf32>
func.func @main(%x: tensor<1x2x4x4xf32> {bwc.name = "x", bwc.trainable})
    -> (tensor<1x2x2x2xf32> {bwc.name = "y"}) {
  %0 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Gather: the indices normalized (negative from the end), one-hot against
// the row ids, and the adjoint summed into the rows by a matmul.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[IDS:.*]] = bwc.constant dense<{{\[\[}}0, 1, 2, 3, 4]]> : tensor<1x5xi64>
// CHECK: %[[I:.*]] = bwc.reshape %arg1 : (tensor<4xi64>) -> tensor<4x1xi64>
// CHECK: %[[NEG:.*]] = bwc.binary lt %[[I]]
// CHECK: %[[NI:.*]] = bwc.select %[[NEG]]
// CHECK: %[[OH:.*]] = bwc.binary eq %[[NI]], %[[IDS]] : (tensor<4x1xi64>, tensor<1x5xi64>) -> tensor<4x5xi1>
// CHECK: %[[OHF:.*]] = bwc.cast %[[OH]] : tensor<4x5xi1> to tensor<4x5xf32>
// CHECK: %[[OHT:.*]] = bwc.transpose %[[OHF]] perm = [1, 0]
// CHECK: %[[D:.*]] = bwc.matmul %[[OHT]], %{{.*}} : (tensor<5x4xf32>, tensor<1x4x3xf32>) -> tensor<1x5x3xf32>
// CHECK: bwc.reshape %[[D]] : (tensor<1x5x3xf32>) -> tensor<5x3xf32>
func.func @main(%e: tensor<5x3xf32> {bwc.name = "e", bwc.trainable},
                %i: tensor<4xi64> {bwc.name = "i"})
    -> (tensor<4x3xf32> {bwc.name = "y"}) {
  %0 = bwc.gather %e[%i] axis = 0 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
