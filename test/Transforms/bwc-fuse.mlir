// RUN: bwc-opt %s --split-input-file --bwc-fuse | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-fuse="reduction=false" | FileCheck %s --check-prefix=NORED
// RUN: bwc-opt %s --split-input-file --bwc-fuse="max-ops=2" | FileCheck %s --check-prefix=MAXOPS

// Tests that an elementwise DAG with a broadcast becomes one loop kernel that
// reads each input once.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[F:.*]] = bwc.fusion loop(%[[B]], %[[X]]) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK: bwc.broadcast
// CHECK: bwc.binary add
// CHECK: bwc.unary exp
// CHECK: bwc.unary neg
// CHECK: bwc.binary mul
// CHECK: %[[C:.*]] = bwc.cast
// CHECK-NEXT: bwc.yield %[[C]] : tensor<4x8xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf16> {
  %bb = bwc.broadcast %b : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = bwc.binary add %x, %bb : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = bwc.unary exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = bwc.unary neg %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = bwc.binary mul %1, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = bwc.cast %3 : tensor<4x8xf32> to tensor<4x8xf16>
  return %4 : tensor<4x8xf16>
}

// -----

// Tests that a decomposed LayerNorm (mean, sub, pow, mean, add eps, sqrt,
// div, mul gamma, add beta) is one reduction kernel; the scalars are cloned
// in, gamma and beta (weights) are inputs.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// CHECK: %[[G:.*]] = bwc.constant dense<2.000000e+00> : tensor<32xf32>
// CHECK: %[[BT:.*]] = bwc.constant dense<5.000000e-01> : tensor<32xf32>
// CHECK-NEXT: %[[F:.*]] = bwc.fusion reduction(%[[X]], %[[G]], %[[BT]])
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x32xf32>, %[[GA:.*]]: tensor<32xf32>, %[[BA:.*]]: tensor<32xf32>):
// CHECK-DAG: %[[TWO:.*]] = bwc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[EPS:.*]] = bwc.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[M:.*]] = bwc.reduce mean %[[A]] axes = [1]
// CHECK-NEXT: %[[D:.*]] = bwc.binary sub %[[A]], %[[M]]
// CHECK-NEXT: %[[SQ:.*]] = bwc.binary pow %[[D]], %[[TWO]]
// CHECK-NEXT: %[[V:.*]] = bwc.reduce mean %[[SQ]] axes = [1]
// CHECK-NEXT: %[[VE:.*]] = bwc.binary add %[[V]], %[[EPS]]
// CHECK-NEXT: %[[S:.*]] = bwc.unary sqrt %[[VE]]
// CHECK-NEXT: %[[N:.*]] = bwc.binary div %[[D]], %[[S]]
// CHECK-NEXT: %[[Y:.*]] = bwc.binary mul %[[N]], %[[GA]]
// CHECK-NEXT: %[[Z:.*]] = bwc.binary add %[[Y]], %[[BA]]
// CHECK-NEXT: bwc.yield %[[Z]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
// CHECK-NOT: bwc.fusion
func.func @main(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %eps = bwc.constant dense<1.0e-5> : tensor<f32>
  %two = bwc.constant dense<2.0> : tensor<f32>
  %g = bwc.constant dense<2.0> : tensor<32xf32>
  %bt = bwc.constant dense<0.5> : tensor<32xf32>
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %sq = bwc.binary pow %d, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = bwc.reduce mean %sq axes = [1] keepdims = true : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %ve = bwc.binary add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = bwc.unary sqrt %ve : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = bwc.binary div %d, %s : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %y = bwc.binary mul %n, %g : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %z = bwc.binary add %y, %bt : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  return %z : tensor<4x32xf32>
}

// -----

// Tests that a Softmax (max, sub, exp, sum, div) is one reduction kernel,
// and that with reduction=false only the elementwise ops between the two
// reductions fuse.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]] = bwc.fusion reduction(%arg0) : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK: bwc.reduce max
// CHECK-NEXT: bwc.binary sub
// CHECK-NEXT: bwc.unary exp
// CHECK-NEXT: bwc.reduce sum
// CHECK-NEXT: bwc.binary div
// CHECK-NEXT: bwc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
// NORED-LABEL: func.func @main(%{{.*}}: tensor<2x4x16xf32>)
// NORED-NEXT: %[[MX:.*]] = bwc.reduce max %arg0
// NORED-NEXT: %[[E:.*]] = bwc.fusion loop(%arg0, %[[MX]])
// NORED: bwc.binary sub
// NORED-NEXT: bwc.unary exp
// NORED: %[[S:.*]] = bwc.reduce sum %[[E]]
// NORED-NEXT: bwc.binary div %[[E]], %[[S]]
func.func @main(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %mx = bwc.reduce max %x axes = [2] keepdims = true : (tensor<2x4x16xf32>) -> tensor<2x4x1xf32>
  %d = bwc.binary sub %x, %mx : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  %e = bwc.unary exp %d : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %s = bwc.reduce sum %e axes = [2] keepdims = true : (tensor<2x4x16xf32>) -> tensor<2x4x1xf32>
  %y = bwc.binary div %e, %s : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Tests multi-output fusion: the mean is needed after the kernel too, so
// the kernel yields it next to the centered values instead of splitting.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]]:2 = bwc.fusion reduction(%arg0) : (tensor<4x32xf32>) -> (tensor<4x1xf32>, tensor<4x32xf32>)
// CHECK: %[[M:.*]] = bwc.reduce mean
// CHECK-NEXT: %[[D:.*]] = bwc.binary sub
// CHECK-NEXT: bwc.yield %[[M]], %[[D]]
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @main(%x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x1xf32>) {
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %d, %m : tensor<4x32xf32>, tensor<4x1xf32>
}

// -----

// Tests horizontal fusion: two independent reductions of the same tensor
// over the same axes read it once.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]]:2 = bwc.fusion reduction(%arg0) : (tensor<4x32xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[S:.*]] = bwc.reduce sum
// CHECK-NEXT: %[[M:.*]] = bwc.reduce max
// CHECK-NEXT: bwc.yield %[[S]], %[[M]]
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @main(%x: tensor<4x32xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<4x32xf32>) -> tensor<4xf32>
  %m = bwc.reduce max %x axes = [1] keepdims = false : (tensor<4x32xf32>) -> tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a matmul takes its bias, activation and residual add as an
// epilogue (one contraction kernel).
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]] = bwc.fusion contraction(%arg0, %arg1, %arg2, %arg3)
// CHECK: bwc.matmul
// CHECK-NEXT: bwc.binary add
// CHECK-NEXT: bwc.unary relu
// CHECK-NEXT: bwc.binary add
// CHECK-NEXT: bwc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = bwc.binary add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = bwc.unary relu %1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = bwc.binary add %2, %r : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----

// Tests that a conv takes BatchNorm's folded scale and shift and a ReLU as an
// epilogue, and a reshape of its filter as a prologue.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]] = bwc.fusion contraction(%arg1, %arg0, %arg2, %arg3)
// CHECK: bwc.reshape
// CHECK-NEXT: bwc.conv
// CHECK-NEXT: bwc.binary mul
// CHECK-NEXT: bwc.binary add
// CHECK-NEXT: bwc.unary relu
// CHECK-NEXT: bwc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x27xf32>, %sc: tensor<1x4x1x1xf32>, %sh: tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %wr = bwc.reshape %w : (tensor<4x27xf32>) -> tensor<4x3x3x3xf32>
  %0 = bwc.conv %x, %wr strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = bwc.binary mul %0, %sc : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %2 = bwc.binary add %1, %sh : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %3 = bwc.unary relu %2 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %3 : tensor<1x4x8x8xf32>
}

// -----

// Tests that data movement (transpose, slice, reshape) joins the elementwise
// consumer instead of writing its result.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]] = bwc.fusion loop(%arg0, %arg1) : (tensor<8x4xf32>, tensor<2x8xf32>) -> tensor<16xf32>
// CHECK: bwc.transpose
// CHECK-NEXT: bwc.slice
// CHECK-NEXT: bwc.binary add
// CHECK-NEXT: bwc.reshape
// CHECK-NEXT: bwc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @main(%x: tensor<8x4xf32>, %y: tensor<2x8xf32>) -> tensor<16xf32> {
  %t = bwc.transpose %x perm = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %s = bwc.slice %t starts = [0, 0] steps = [2, 1] : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %a = bwc.binary add %s, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = bwc.reshape %a : (tensor<2x8xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Tests that a broadcast read by two matmul epilogues is cloned into both
// kernels (each reads the small vector) rather than written once at full
// size; the matmuls themselves stay apart.
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.broadcast
// CHECK: %[[F0:.*]] = bwc.fusion contraction(%arg3, %arg0, %arg1)
// CHECK: bwc.broadcast
// CHECK-NEXT: bwc.matmul
// CHECK-NEXT: bwc.binary add
// CHECK: %[[F1:.*]] = bwc.fusion contraction(%arg3, %arg0, %arg2)
// CHECK: bwc.broadcast
// CHECK-NEXT: bwc.matmul
// CHECK-NEXT: bwc.binary add
// CHECK: return %[[F0]], %[[F1]]
func.func @main(%x: tensor<64x8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %bb = bwc.broadcast %b : (tensor<32xf32>) -> tensor<64x32xf32>
  %0 = bwc.matmul %x, %w1 : (tensor<64x8xf32>, tensor<8x32xf32>) -> tensor<64x32xf32>
  %1 = bwc.binary add %0, %bb : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = bwc.matmul %x, %w2 : (tensor<64x8xf32>, tensor<8x32xf32>) -> tensor<64x32xf32>
  %3 = bwc.binary add %2, %bb : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1, %3 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// Tests that a matmul never joins a matmul: the consumer reads the first
// product from memory, and a lone op gets no fusion wrapper.
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.fusion
// CHECK: %[[A:.*]] = bwc.matmul %arg0, %arg1
// CHECK-NEXT: %[[B:.*]] = bwc.matmul %[[A]], %arg2
// CHECK-NEXT: return %[[B]]
func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = bwc.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = bwc.matmul %0, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Tests that reductions over different axes do not share a kernel (no
// common row).
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.fusion
// CHECK: %[[R:.*]] = bwc.reduce sum %arg0 axes = [1]
// CHECK-NEXT: %[[C:.*]] = bwc.reduce max %[[R]] axes = [0]
// CHECK-NEXT: return %[[C]]
func.func @main(%x: tensor<4x32xf32>) -> tensor<1x1xf32> {
  %r = bwc.reduce sum %x axes = [1] keepdims = true : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %c = bwc.reduce max %r axes = [0] keepdims = true : (tensor<4x1xf32>) -> tensor<1x1xf32>
  return %c : tensor<1x1xf32>
}

// -----

// Tests that the transpose does not join the add: the add also reads the
// pool, which reads the transpose, so the merged kernel would both feed and
// wait for the pool (a cycle).
// CHECK-LABEL: func.func @main
// CHECK-NOT: bwc.fusion
// CHECK: %[[T:.*]] = bwc.transpose %arg0
// CHECK-NEXT: %[[P:.*]] = bwc.pool max %[[T]]
// CHECK-NEXT: %[[A:.*]] = bwc.binary add %[[T]], %[[P]]
// CHECK-NEXT: return %[[A]]
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %t = bwc.transpose %x perm = [0, 1, 3, 2] : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %p = bwc.pool max %t kernel = [1, 1] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %a = bwc.binary add %t, %p : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %a : tensor<1x1x4x4xf32>
}

// -----

// Tests that a chain of three ops fuses by default and that with max-ops=2
// it splits into a kernel of two ops and a plain op.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[F:.*]] = bwc.fusion loop(%arg0)
// CHECK: bwc.unary exp
// CHECK-NEXT: bwc.unary neg
// CHECK-NEXT: bwc.unary abs
// MAXOPS-LABEL: func.func @main(%{{.*}}: tensor<16xf32>)
// MAXOPS-NEXT: %[[F:.*]] = bwc.fusion loop(%arg0)
// MAXOPS: bwc.unary exp
// MAXOPS-NEXT: bwc.unary neg
// MAXOPS-NEXT: bwc.yield
// MAXOPS-NEXT: }
// MAXOPS-NEXT: %[[A:.*]] = bwc.unary abs %[[F]]
// MAXOPS-NEXT: return %[[A]]
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = bwc.unary exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = bwc.unary neg %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = bwc.unary abs %1 : (tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// Tests that a DequantizeLinear of int8 weights, (cast(q) - zero_point) *
// scale, joins the matmul as a prologue: the prologue reads 1-byte elements
// and hands 4-byte ones to the matmul (it widens), so the kernel reads the
// int8 tensor.
// CHECK-LABEL: func.func @main
// CHECK: %[[F:.*]] = bwc.fusion contraction(%arg1, %arg0) : (tensor<8x16xi8>, tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK: bwc.cast %{{.*}} : tensor<8x16xi8> to tensor<8x16xf32>
// CHECK-NEXT: bwc.binary sub
// CHECK-NEXT: bwc.binary mul
// CHECK-NEXT: bwc.matmul
// CHECK-NEXT: bwc.yield
// CHECK: return %[[F]]
func.func @main(%x: tensor<4x8xf32>, %q: tensor<8x16xi8>) -> tensor<4x16xf32> {
  %s = bwc.constant dense<[0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25]> : tensor<16xf32>
  %z = bwc.constant dense<3.0> : tensor<f32>
  %c = bwc.cast %q : tensor<8x16xi8> to tensor<8x16xf32>
  %d = bwc.binary sub %c, %z : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %w = bwc.binary mul %d, %s : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = bwc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that arithmetic which does not widen (a relu of the activation: as
// many bytes read as handed on) stays out of a contraction's prologue; it
// would be recomputed for every tile that reads it.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[R:.*]] = bwc.unary relu %arg0
// CHECK-NEXT: %[[M:.*]] = bwc.matmul %[[R]], %arg1
// CHECK-NEXT: return %[[M]]
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %r = bwc.unary relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = bwc.matmul %r, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests the widening tail move: between two contractions a QDQ pair
// (quantize into ui8, dequantize back) first joins the producer's epilogue;
// the dequantizing tail (cast up, scale) then moves into the consumer's
// prologue, so the tensor between the kernels is the ui8 one (64 bytes
// instead of 256).
// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = bwc.fusion contraction(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xui8>
// CHECK: bwc.matmul
// CHECK: %[[Q:.*]] = bwc.cast %{{.*}} : tensor<4x16xf32> to tensor<4x16xui8>
// CHECK-NEXT: bwc.yield %[[Q]]
// CHECK: %[[C:.*]] = bwc.fusion contraction(%[[P]], %arg2) : (tensor<4x16xui8>, tensor<16x4xf32>) -> tensor<4x4xf32>
// CHECK: bwc.cast %{{.*}} : tensor<4x16xui8> to tensor<4x16xf32>
// CHECK-NEXT: bwc.binary mul
// CHECK-NEXT: bwc.matmul
// CHECK: return %[[C]]
func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x4xf32>) -> tensor<4x4xf32> {
  %s = bwc.constant dense<0.5> : tensor<f32>
  %0 = bwc.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = bwc.unary relu %0 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = bwc.binary div %1, %s : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %3 = bwc.unary round %2 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %4 = bwc.cast %3 : tensor<4x16xf32> to tensor<4x16xui8>
  %5 = bwc.cast %4 : tensor<4x16xui8> to tensor<4x16xf32>
  %6 = bwc.binary mul %5, %s : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %7 = bwc.matmul %6, %w2 : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  return %7 : tensor<4x4xf32>
}

// -----

// Tests a runtime If's join (the select marked bwc.if_both_branches): it
// shares no kernel with the op computing its condition (the condition must
// reach memory before the branches' launches) nor with a branch's
// reduction or contraction (they would run whatever the branch), while the
// else branch's elementwise tail still fuses into it.
// CHECK-LABEL: func.func @main(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK: %[[C:.*]] = bwc.fusion reduction(%arg0)
// CHECK: bwc.reduce sum
// CHECK: bwc.binary gt
// CHECK: %[[T:.*]] = bwc.matmul %arg0, %arg1
// CHECK: bwc.fusion loop(%arg0, %[[C]], %[[T]])
// CHECK: bwc.unary neg
// CHECK: bwc.select {{.*}} {bwc.if_both_branches}
func.func @main(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %s = bwc.reduce sum %x axes = [0, 1] keepdims = false : (tensor<16x16xf32>) -> tensor<f32>
  %zero = bwc.constant dense<0.0> : tensor<f32>
  %c = bwc.binary gt %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %t = bwc.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = bwc.unary neg %x : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = bwc.select %c, %t, %e {bwc.if_both_branches} : (tensor<i1>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
